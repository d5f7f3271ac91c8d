/**
 * Outcomes by the vendor's signed webhooks (D21, issue 43 item 2; P310–P313), for the connectors whose outcomes
 * come `by: 'webhook'` (Greenhouse, Lever):
 * - connecting gives the company an inbound URL, `{base}/ats-webhooks/{token}` (a random token, found by its
 *   SHA-256, never the company id) and, where the vendor signs with a secret the company enters (Greenhouse), a
 *   secret we generate; both sealed (D18) and shown again by the connect page and `company connect` (P310);
 * - when the ATS accepts an application, what its webhooks will name it by is kept (`rememberDelivery`): a keyed
 *   hash of each reference (the ATS's id, or the candidate's e-mail where the ATS answers no id), per company (P311);
 * - a webhook is verified by the vendor's scheme (the connector's `outcomeWebhooks`), refused when replayed (its
 *   signature remembered, P312), matched to an application of the token's company only, and recorded through the
 *   outcome store like a reading (the same conditional write and `application.outcome_changed`), and in the
 *   delivery log when it changed something (an inbound call, not one of ours: P350 logs every reading we make).
 * Nothing here logs the body, the headers, the token or the secret.
 */
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { getApplicationRecord } from '#applications/application-store.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { outcomeTrackDays, recordOutcome } from '#applications/outcome-store.js';
import { atsConnected, type CompanyRecord } from '#companies/company-schema.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { derivedSecretKey } from '#platform/derived-keys.js';
import { ConflictError, NotFoundError, isConditionFailure } from '#platform/errors.js';
import { expiringAt, keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';
import { openSecret, sealSecret, type SealedSecret } from '#platform/secrets.js';
import type { OutcomeWebhooks, WebhookOutcome } from '#delivery/connectors/connector.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import { loadCredentials } from '#delivery/credentials.js';
import { writeDeliveryLog } from '#delivery/delivery-log.js';

/** The path of the inbound route (shared/http/routes.ts `AtsWebhook`). */
export const ATS_WEBHOOK_PATH = '/ats-webhooks';

const sealContext = (companyId: number) => ({ purpose: 'ats-webhook', company: String(companyId) });
const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');
/** A reference (an ATS id, an e-mail) is never a key as given: a keyed hash, per purpose (P311). */
const refHash = (ref: string) => createHmac('sha256', derivedSecretKey('his-ats-webhook-ref-v1')).update(ref, 'utf8').digest('base64url');

/** Whether the company's ATS tells outcomes by webhooks (D21). */
export function takesOutcomeWebhooks(ats: string | null | undefined): boolean {
  return connectorFor(ats ?? '')?.outcomes.by === 'webhook';
}

interface StoredHook {
  token: string;
  /** Ours, for a vendor that signs with a secret the company enters (Greenhouse); null where the vendor makes it (Lever). */
  secret: string | null;
}

async function storedHook(companyId: number): Promise<StoredHook | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.atsWebhookOf(companyId), ConsistentRead: true }));
  if (!out.Item) return undefined;
  return JSON.parse(await openSecret(out.Item.sealed as SealedSecret, sealContext(companyId))) as StoredHook;
}

/**
 * After a company connected an ATS whose outcomes come by webhooks: its inbound URL's token and (where ours) the
 * signing secret, made once and kept across reconnects (the company pasted them into its ATS). Idempotent.
 */
export async function ensureAtsWebhook(companyId: number, ats: string): Promise<void> {
  const connector = connectorFor(ats);
  if (connector?.outcomes.by !== 'webhook') return;
  const existing = await storedHook(companyId);
  const ours = (await loadConnector(ats))?.outcomeWebhooks?.secrets.by === 'ours';
  if (existing && (existing.secret !== null) === ours) return;
  const hook: StoredHook = {
    token: existing?.token ?? randomBytes(24).toString('base64url'),
    secret: ours ? (existing?.secret ?? `ghs_${randomBytes(32).toString('base64url')}`) : null,
  };
  const at = now().toISOString();
  // The lookup first: a company item without it would show a URL that answers 404.
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: { ...keys.atsWebhook(sha256(hook.token)), company: companyId, created_at: at },
    }),
  );
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: { ...keys.atsWebhookOf(companyId), sealed: await sealSecret(JSON.stringify(hook), sealContext(companyId)), created_at: at },
    }),
  );
}

/** What the company pastes into its ATS (the connect page, `company connect`): the URL and our secret, or null. */
export interface AtsWebhookSetup {
  url: string;
  secret: string | null;
  /** Where the signature's key comes from when it is not ours: the credential to give us (Lever's signature tokens). */
  secret_from: string | null;
  events: string;
  source: string;
}

export async function atsWebhookSetup(company: Pick<CompanyRecord, 'id' | 'ats'>, base: string): Promise<AtsWebhookSetup | undefined> {
  const outcomes = connectorFor(company.ats ?? '')?.outcomes;
  if (outcomes?.by !== 'webhook') return undefined;
  const hook = await storedHook(company.id);
  if (!hook) return undefined;
  const webhooks = (await loadConnector(company.ats!))!.outcomeWebhooks!;
  return {
    url: `${base.replace(/\/+$/, '')}${ATS_WEBHOOK_PATH}/${hook.token}`,
    secret: hook.secret,
    secret_from: webhooks.secrets.by === 'credential' ? webhooks.secrets.field : null,
    events: outcomes.about,
    source: outcomes.source,
  };
}

/**
 * The sync worker, once the ATS accepted the application (P311): what the ATS's webhooks will name it by, one
 * small item per reference, expiring a week after the tracking window. Idempotent (a retried sync puts the same).
 */
export async function rememberDelivery(
  record: Pick<ApplicationRecord, 'id' | 'company' | 'applied_at' | 'candidate'>,
  company: Pick<CompanyRecord, 'ats'>,
  delivered: { externalId: string | null; jobExternalId: string },
): Promise<void> {
  if (!takesOutcomeWebhooks(company.ats)) return;
  const webhooks = (await loadConnector(company.ats!))?.outcomeWebhooks;
  if (!webhooks) return;
  const email = typeof record.candidate?.email === 'string' ? record.candidate.email : undefined;
  const expires = Math.floor(Date.parse(record.applied_at) / 1000) + (outcomeTrackDays() + 7) * 86_400;
  for (const ref of webhooks.deliveryRefs({ ...delivered, email }))
    await putRef(record.company, ref, record.id, delivered.jobExternalId, expires);
}

async function putRef(companyId: number, ref: string, applicationId: number, jobExternalId: string | null, expires: number) {
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...keys.atsRef(companyId, refHash(ref), applicationId),
        application: applicationId,
        ...(jobExternalId ? { job_external_id: jobExternalId } : {}),
        ...expiringAt(expires),
      },
    }),
  );
}

/** The applications of the company one reference names (at most a few: one candidate's applications). */
async function applicationsNamed(companyId: number, ref: string): Promise<{ id: number; job?: string; expires?: number }[]> {
  return applicationsHashed(companyId, refHash(ref));
}

async function applicationsHashed(companyId: number, hash: string): Promise<{ id: number; job?: string; expires?: number }[]> {
  const prefix = keys.atsRef(companyId, hash, 0).PK;
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      // The application items only (a parked link shares the partition, P348).
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :application)',
      ExpressionAttributeValues: { ':pk': prefix, ':application': 'APPLICATION#' },
      Limit: 20,
    }),
  );
  return (out.Items ?? []).map((item) => ({
    id: Number(item.application),
    ...(typeof item.job_external_id === 'string' ? { job: item.job_external_id } : {}),
    ...(typeof item.expires_at === 'number' ? { expires: item.expires_at } : {}),
  }));
}

/** The one application the webhook names, or undefined: none of this company's, or several it cannot tell apart. */
async function matchApplication(companyId: number, said: WebhookOutcome) {
  for (const ref of said.refs) {
    let found = await applicationsNamed(companyId, ref);
    if (found.length > 1 && said.jobIds.length) found = found.filter((f) => f.job !== undefined && said.jobIds.includes(f.job));
    if (found.length === 1) return { ...found[0], ref };
    if (found.length > 1) return undefined;
  }
  return undefined;
}

/**
 * P348: a link the webhook could not make (no application named yet): `link` is kept as naming what `ref` will name,
 * for the tracking window, so a later webhook naming `link` finds the application once the sync worker kept `ref`.
 * One small item, written only for a webhook that matched nothing (its ATS's applications that never came through
 * us too: the price of not losing ours).
 */
async function park(companyId: number, link: string, ref: string): Promise<void> {
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...keys.atsRefParked(companyId, refHash(link)),
        ref_hash: refHash(ref),
        ...expiringAt(Math.floor(now().getTime() / 1000) + (outcomeTrackDays() + 7) * 86_400),
      },
    }),
  );
}

/** The application a parked link names by now (P348): the webhook's refs each looked up as a parked link, then its ref. */
async function matchParked(companyId: number, said: WebhookOutcome) {
  for (const link of said.refs) {
    const out = await db().send(
      // Eventually consistent: a link is parked long before the later webhook that looks for it.
      new GetCommand({ TableName: config().tableName, Key: keys.atsRefParked(companyId, refHash(link)) }),
    );
    const hash = out.Item?.ref_hash;
    if (typeof hash !== 'string') continue;
    const found = await applicationsHashed(companyId, hash);
    if (found.length === 1) return { ...found[0], ref: undefined, link };
  }
  return undefined;
}

export type WebhookResult = 'recorded' | 'unchanged' | 'ignored';

/** The company behind a URL token, with its connector's webhook scheme, or a 404 (unknown token, ATS changed, disconnected, deleted). */
async function hookTarget(token: string | undefined): Promise<{ company: CompanyRecord; webhooks: OutcomeWebhooks; hook: StoredHook }> {
  if (!token || !/^[A-Za-z0-9_-]{16,64}$/.test(token)) throw new NotFoundError();
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.atsWebhook(sha256(token)) }));
  const companyId = Number(out.Item?.company);
  if (!out.Item || !Number.isSafeInteger(companyId)) throw new NotFoundError();
  const company = await getCompanyRecord(companyId);
  // A disconnected company (D15: no credentials checked against its ATS) takes no webhooks either.
  if (!company || company.status === 'deleted' || !takesOutcomeWebhooks(company.ats) || !atsConnected(company)) throw new NotFoundError();
  const hook = await storedHook(companyId);
  const webhooks = (await loadConnector(company.ats!))?.outcomeWebhooks;
  // A token replaced meanwhile (the company's current one differs) is unknown.
  if (!hook || hook.token !== token || !webhooks) throw new NotFoundError();
  return { company, webhooks, hook };
}

/** The keys the delivery may be signed with: our secret, or the signature tokens the company gave (comma-separated). */
async function signingSecrets(company: CompanyRecord, webhooks: OutcomeWebhooks, hook: StoredHook): Promise<string[]> {
  if (webhooks.secrets.by === 'ours') return hook.secret ? [hook.secret] : [];
  const given = (await loadCredentials(company).catch(() => ({}) as Record<string, string>))[webhooks.secrets.field] ?? '';
  return given
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

/**
 * One inbound webhook (`POST /ats-webhooks/{token}`): 404 an unknown token, 401 a forged or stale signature, 409
 * a replay, 400 a malformed body, each before anything is written. A valid one that names no application of the
 * token's company (another company's, one never delivered, an event that says nothing of outcomes) is `ignored`.
 */
export async function receiveAtsWebhook(
  token: string | undefined,
  header: (name: string) => string | undefined,
  body: Buffer,
): Promise<WebhookResult> {
  const { company, webhooks, hook } = await hookTarget(token);
  const verified = webhooks.verify(body, header, await signingSecrets(company, webhooks, hook), now().getTime());
  const seenKey = keys.atsWebhookSeen(company.id, sha256(verified.replayKey));
  const seen = await db().send(new GetCommand({ TableName: config().tableName, Key: seenKey, ConsistentRead: true }));
  if (seen.Item && Number(seen.Item.expires_at) > now().getTime() / 1000) throw replayed();
  const said = webhooks.read(verified.json);
  const result = said ? await apply(company, said, webhooks.parks === true) : 'ignored';
  // Remembered once taken (a delivery that failed before this is taken again when the vendor retries it).
  const remember = verified.rememberSeconds ?? outcomeTrackDays() * 86_400;
  try {
    await db().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...seenKey, ...expiringAt(Math.floor(now().getTime() / 1000) + remember) },
        ConditionExpression: 'attribute_not_exists(PK) OR expires_at < :now',
        ExpressionAttributeValues: { ':now': Math.floor(now().getTime() / 1000) },
      }),
    );
  } catch (error) {
    // Two copies at once: the write is conditional, so the second is a replay too (what it recorded changed nothing new).
    if (isConditionFailure(error)) throw replayed();
    throw error;
  }
  logger.info('ats webhook', { companyId: company.id, ats: company.ats, result });
  return result;
}

const replayed = () => new ConflictError('This webhook delivery was already received.', 'replayed');

async function apply(company: CompanyRecord, said: WebhookOutcome, parks: boolean): Promise<WebhookResult> {
  const match = (await matchApplication(company.id, said)) ?? (parks ? await matchParked(company.id, said) : undefined);
  if (!match) {
    if (said.park && said.link) await park(company.id, said.link, said.park.ref);
    return 'ignored';
  }
  const record = await getApplicationRecord(match.id);
  // Scoped by the token's company twice: its reference items only, and the application itself must be its own.
  if (!record || record.company !== company.id || record.personal_data_deleted_at) return 'ignored';
  // The webhook's own link, or the one parked for it (P348): later webhooks find the application by it directly.
  const link = said.link ?? ('link' in match ? match.link : undefined);
  if (link && link !== match.ref)
    await putRef(company.id, link, record.id, match.job ?? null, match.expires ?? Math.floor(now().getTime() / 1000) + 86_400 * 97);
  const reading = said.reading;
  if (!reading) return 'unchanged';
  if (record.outcome && said.keeps?.includes(record.outcome)) return 'unchanged';
  if (reading.outcome === (record.outcome ?? null) && reading.stage === (record.outcome_stage ?? null)) return 'unchanged';
  // A webhook is a reading that arrived by itself: the same conditional write and event (P299).
  const at = now().toISOString();
  if (!(await recordOutcome(record, reading, at))) return 'unchanged';
  // In the delivery log as a reading that changed something (an inbound call: P350 logs every call of ours), without
  // its token or body.
  await writeDeliveryLog(record.id, [
    {
      attempt: 1,
      at,
      operation: 'outcomeWebhook',
      method: 'POST',
      url: `${ATS_WEBHOOK_PATH}/{token}`,
      status: 200,
      duration_ms: 0,
      result: 'accepted',
      failure_error: null,
      error_code: null,
      response_excerpt: '',
      fields_sent: [],
    },
  ]);
  return 'recorded';
}
