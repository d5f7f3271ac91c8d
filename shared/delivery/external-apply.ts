/**
 * The `external_apply_status` follow-up (issue 23 item 3, docs/decisions.md P206–P207). When a candidate
 * applied through us but the company takes applications only on its own career site (the job's
 * `application_url`, no ATS sync), the candidate is e-mailed a tracked link, `{PUBLIC_BASE_URL}/r/{token}`,
 * that leads to the job's own `application_url`; the status moves NOTSENT → CONTACTED with its event on the
 * application item (P116, P240), in one transaction with the reminder's due item.
 *
 * The token is derived, not stored: base64url of `version (1) | application id` (varint) and the first 16
 * bytes of HMAC-SHA256 under HKDF(`CURSOR_SECRET`, `his-external-apply-v1`) over a purpose byte and those
 * bytes. The purpose byte separates the redirect link from the unsubscribe link, so neither stands for the
 * other. 128 bits to guess; tokens are never logged.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { getApplicationRecord, markExternalApplyUnsubscribed, statusMoveUpdate } from '#applications/application-store.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { getCompanyRecord } from '#companies/company-store.js';
import { syncActive, type CompanyRecord } from '#companies/company-schema.js';
import { sendMail } from '#delivery/email.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { NotFoundError, isConditionFailure } from '#platform/errors.js';
import { rethrowIfCrash } from '#platform/faults.js';
import { getJob } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';
import { derivedSecretKey } from '#platform/derived-keys.js';
import { isHttpUrl } from '#platform/web-formats.js';

const TOKEN_VERSION = 1;
const MAC_BYTES = 16;
const MAX_TOKEN_CHARS = 40;
const DOMAIN = Buffer.from('external-apply\u0000', 'utf8');
export type LinkPurpose = 'redirect' | 'unsubscribe';
const PURPOSE: Record<LinkPurpose, number> = { redirect: 1, unsubscribe: 2 };

/** Hours without a click before the one reminder (`EXTERNAL_APPLY_REMINDER_HOURS`, default 48). */
export const reminderHours = () => {
  const hours = Number(process.env.EXTERNAL_APPLY_REMINDER_HOURS ?? 48);
  return Number.isFinite(hours) && hours > 0 ? hours : 48;
};

const key = () => derivedSecretKey('his-external-apply-v1');

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    bytes.push(rest > 0 ? low + 128 : low);
  } while (rest > 0);
  return bytes;
}

const macOf = (purpose: LinkPurpose, body: Buffer) =>
  createHmac('sha256', key())
    .update(DOMAIN)
    .update(Buffer.from([PURPOSE[purpose]]))
    .update(body)
    .digest()
    .subarray(0, MAC_BYTES);

/** The token of one application's link for `purpose`. */
export function externalApplyToken(applicationId: number, purpose: LinkPurpose): string {
  const body = Buffer.from([TOKEN_VERSION, ...varint(applicationId)]);
  return Buffer.concat([body, macOf(purpose, body)]).toString('base64url');
}

/** The application id a token names, when its MAC holds for `purpose`; else undefined. */
export function verifyExternalApplyToken(token: string, purpose: LinkPurpose): number | undefined {
  if (token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length < 2 + MAC_BYTES || bytes[0] !== TOKEN_VERSION) return undefined;
  const body = bytes.subarray(0, bytes.length - MAC_BYTES);
  let value = 0;
  let scale = 1;
  for (let i = 1; i < body.length; i++) {
    value += (body[i] % 128) * scale;
    if (body[i] < 128) {
      if (i !== body.length - 1 || !Number.isSafeInteger(value)) return undefined;
      break;
    }
    scale *= 128;
  }
  return timingSafeEqual(bytes.subarray(body.length), macOf(purpose, body)) ? value : undefined;
}

/** The public base of the links: `PUBLIC_BASE_URL` (http(s) only), else none and nothing is sent. */
function linkBase(): string | undefined {
  const configured = process.env.PUBLIC_BASE_URL;
  return configured && isHttpUrl(configured) ? configured.replace(/\/+$/, '') : undefined;
}

const candidateEmail = (record: ApplicationRecord) => {
  const email = record.candidate?.email;
  return typeof email === 'string' && email ? email : undefined;
};

/**
 * Whether the follow-up is due for this application (P206): the company is entitled to `external_apply`
 * and does not sync candidates to an ATS, the application is NOTSENT, not anonymized, and has a candidate
 * e-mail. The job's `application_url` is checked when the job is read (`contactCandidate`).
 */
export function externalApplyDue(company: CompanyRecord, record: ApplicationRecord): boolean {
  return (
    company.entitlements.includes('external_apply') &&
    !syncActive(company, 'candidate_sync') &&
    record.external_apply_status === 'NOTSENT' &&
    !record.personal_data_deleted_at &&
    record.status !== 'anonymized' &&
    candidateEmail(record) !== undefined
  );
}

type Texts = { subject: (job: string, company: string) => string; body: (job: string, company: string) => string[] };
const TEXTS: ReadonlyMap<string, Texts> = new Map([
  [
    'en',
    {
      subject: (job, company) => `Complete your application: ${job} at ${company}`,
      body: (job, company) => [
        `Thank you for applying for "${job}" at ${company}.`,
        `${company} takes applications on its own career site. Please complete your application there:`,
      ],
    },
  ],
  [
    'de',
    {
      subject: (job, company) => `Bewerbung abschließen: ${job} bei ${company}`,
      body: (job, company) => [
        `Danke für Ihre Bewerbung auf "${job}" bei ${company}.`,
        `${company} nimmt Bewerbungen auf der eigenen Karriereseite entgegen. Bitte schließen Sie Ihre Bewerbung dort ab:`,
      ],
    },
  ],
  [
    'fr',
    {
      subject: (job, company) => `Finalisez votre candidature : ${job} chez ${company}`,
      body: (job, company) => [
        `Merci pour votre candidature au poste « ${job} » chez ${company}.`,
        `${company} reçoit les candidatures sur son propre site carrière. Merci de finaliser votre candidature ici :`,
      ],
    },
  ],
]);
const UNSUBSCRIBE: ReadonlyMap<string, string> = new Map([
  ['en', 'No more reminders about this application:'],
  ['de', 'Keine weiteren Erinnerungen zu dieser Bewerbung:'],
  ['fr', 'Ne plus recevoir de rappel pour cette candidature :'],
]);

/** The candidate's language (`de-CH` → `de`) when we have texts for it, else English. */
function languageOf(record: ApplicationRecord): string {
  const tag = String(record.candidate?.language ?? '')
    .toLowerCase()
    .split(/[-_]/)[0];
  return TEXTS.has(tag) ? tag : 'en';
}

/** The follow-up message: job, company, the tracked link and the unsubscribe link; nothing of anyone else. */
export function followUpMail(record: ApplicationRecord, job: JobRecord, company: CompanyRecord, base: string, reminder: boolean) {
  const language = languageOf(record);
  const texts = TEXTS.get(language)!;
  const title = String(job.title ?? job.external_id).replace(/[\r\n]+/g, ' ');
  const name = company.name.replace(/[\r\n]+/g, ' ');
  const subject = texts.subject(title, name);
  return {
    to: candidateEmail(record)!,
    subject: reminder ? `Reminder: ${subject}` : subject,
    text: [
      ...texts.body(title, name),
      '',
      `${base}/r/${externalApplyToken(record.id, 'redirect')}`,
      '',
      UNSUBSCRIBE.get(language)!,
      `${base}/r/${externalApplyToken(record.id, 'unsubscribe')}/unsubscribe`,
      '',
    ].join('\n'),
    attachments: [],
    id: `external-apply-${reminder ? 'reminder' : 'contact'}-${record.id}`,
  };
}

/**
 * Whether the job still takes applications through its link (P271): the job `active`, its company neither
 * `deactivated` nor `deleted` (D17). Otherwise the tracked link answers "no longer open" (410) and no e-mail
 * (first or reminder) sends the candidate there.
 */
export function externalApplyOpen(company: Pick<CompanyRecord, 'status'>, job: Pick<JobRecord, 'status'>): boolean {
  return job.status === 'active' && company.status !== 'deactivated' && company.status !== 'deleted';
}

/**
 * Sends the first follow-up e-mail and writes CONTACTED over NOTSENT with its event, in one transaction.
 * Nothing is written (NOTSENT stays) when the job is no longer open (archived or deleted, P271) or has no
 * http(s) `application_url`, or no public base is configured. A failed send leaves NOTSENT and fails the sync
 * attempt, so the sync message comes back (and the application stays due for the sweeper) and tries again with
 * the same Message-ID (P106, P267).
 */
export async function contactCandidate(record: ApplicationRecord, company: CompanyRecord): Promise<void> {
  const job = await getJob(company.id, record.job);
  const url = job.application_url;
  if (!externalApplyOpen(company, job) || typeof url !== 'string' || !isHttpUrl(url)) return;
  const base = linkBase();
  if (!base) {
    logger.warn('external apply follow-up skipped: PUBLIC_BASE_URL is not set', { applicationId: record.id });
    return;
  }
  try {
    await sendMail(followUpMail(record, job, company, base, false));
  } catch (error) {
    rethrowIfCrash(error);
    logger.error('external apply follow-up failed', { applicationId: record.id, error: error as Error });
    throw error;
  }
  const at = now();
  const remindAt = new Date(at.getTime() + reminderHours() * 3_600_000).toISOString();
  let previous = record.event_sequence ?? 0;
  for (let attempt = 0; ; attempt++) {
    try {
      await db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: statusMoveUpdate(record, {
                field: 'external_apply_status',
                from: 'NOTSENT',
                to: 'CONTACTED',
                at: at.toISOString(),
                previous,
                also: { external_apply_remind_at: remindAt },
              }),
            },
            // The reminder's due item (P207), read by the scheduled `sendDueReminders`.
            {
              Put: {
                TableName: config().tableName,
                Item: { ...keys.externalApplyDue(record.id, remindAt), entity: 'external_apply_due', application_id: record.id },
              },
            },
          ],
        }),
      );
      break;
    } catch (error) {
      if (!isConditionFailure(error) || attempt >= 3) throw error;
      const fresh = await getApplicationRecord(record.id);
      if (!fresh || fresh.external_apply_status !== 'NOTSENT') return; // decided by another attempt
      previous = fresh.event_sequence ?? 0;
    }
  }
  record.external_apply_status = 'CONTACTED';
  record.event_sequence = previous + 1;
}

/** Where a tracked link leads: the job's own `application_url`, or `closed` (the job no longer takes applications). */
export type FollowedLink = { url: string } | 'closed';

/**
 * A click on the tracked link (P207): the job's own `application_url` to redirect to; `closed` (410) when the
 * job is not `active` or its company is deactivated or deleted (P271), with nothing written; or undefined (404)
 * when the token names no application that was contacted, the application was anonymized, or the job (or
 * company) is gone or has no http(s) `application_url` (any more). A click after CONTACTED or REMINDED writes
 * ENGAGED with its event; a repeated click writes nothing. Nothing of the request but the token is used.
 */
export async function followExternalApplyLink(token: string): Promise<FollowedLink | undefined> {
  const id = verifyExternalApplyToken(token, 'redirect');
  if (id === undefined) return undefined;
  const record = await getApplicationRecord(id);
  if (!record || record.personal_data_deleted_at || record.status === 'anonymized') return undefined;
  if (record.external_apply_status === 'NOTSENT') return undefined;
  const [job, company] = await Promise.all([
    getJob(record.company, record.job).catch((error: unknown) => {
      if (error instanceof NotFoundError) return undefined;
      throw error;
    }),
    getCompanyRecord(record.company),
  ]);
  if (!job || !company) return undefined;
  if (!externalApplyOpen(company, job)) return 'closed';
  const url = job.application_url;
  if (typeof url !== 'string' || !isHttpUrl(url)) return undefined;
  let current: ApplicationRecord | undefined = record;
  for (let attempt = 0; current && attempt < 4; attempt++) {
    const from = current.external_apply_status;
    if (from !== 'CONTACTED' && from !== 'REMINDED') break;
    const previous = current.event_sequence ?? 0;
    const at = now().toISOString();
    try {
      // One item, its event on it (P240): a plain update, not a transaction.
      await db().send(new UpdateCommand(statusMoveUpdate(current, { field: 'external_apply_status', from, to: 'ENGAGED', at, previous })));
      break;
    } catch (error) {
      if (!isConditionFailure(error)) {
        // The candidate is sent on even when the status could not be written.
        logger.error('external apply click not recorded', { applicationId: id, error: error as Error });
        break;
      }
      current = await getApplicationRecord(id);
    }
  }
  return { url };
}

/**
 * The unsubscribe link (P207): the application the token names when it is one that was contacted, else
 * undefined. `stop` records the unsubscribe (`external_apply_unsubscribed_at`, one write, no status change and
 * no event: the status says how far the candidate got, not whether reminders are wanted); a repeat writes
 * nothing. Reminders are not sent to an application with the mark.
 */
export async function externalApplyUnsubscribe(token: string, stop: boolean): Promise<'found' | 'unsubscribed' | undefined> {
  const id = verifyExternalApplyToken(token, 'unsubscribe');
  if (id === undefined) return undefined;
  const record = await getApplicationRecord(id);
  if (!record || record.external_apply_status === 'NOTSENT') return undefined;
  if (!stop) return 'found';
  await markExternalApplyUnsubscribed(id, now().toISOString());
  return 'unsubscribed';
}

/**
 * Scheduled (P207): sends the one reminder of each application whose due item is past, CONTACTED → REMINDED
 * with its event, and deletes the due item in the same transaction. A due item whose application was clicked
 * (ENGAGED), unsubscribed, anonymized, or whose company or job no longer qualifies (the job closed or the company
 * deactivated or deleted meanwhile, P271) is deleted with nothing sent.
 */
export async function sendDueReminders(options: { limitPerShard?: number } = {}): Promise<{ reminded: number; dropped: number }> {
  const result = { reminded: 0, dropped: 0 };
  const current = now().toISOString();
  const base = linkBase();
  for (let shard = 0; shard < 4; shard++) {
    const out = await db().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: 'PK = :pk AND SK < :now',
        ExpressionAttributeValues: { ':pk': `EXTAPPLYDUE#${shard}`, ':now': current },
        Limit: options.limitPerShard ?? 100,
      }),
    );
    for (const item of out.Items ?? []) {
      const due = { Delete: { TableName: config().tableName, Key: { PK: item.PK as string, SK: item.SK as string } } };
      const record = await getApplicationRecord(Number(item.application_id));
      const company = record ? await getCompanyRecord(record.company) : undefined;
      const job =
        record && company
          ? await getJob(company.id, record.job).catch((error: unknown) => {
              if (error instanceof NotFoundError) return undefined;
              throw error;
            })
          : undefined;
      const qualifies =
        record &&
        company &&
        job &&
        base &&
        record.external_apply_status === 'CONTACTED' &&
        !(record as ApplicationRecord & { external_apply_unsubscribed_at?: string }).external_apply_unsubscribed_at &&
        !record.personal_data_deleted_at &&
        record.status !== 'anonymized' &&
        company.entitlements.includes('external_apply') &&
        !syncActive(company, 'candidate_sync') &&
        candidateEmail(record) !== undefined &&
        externalApplyOpen(company, job) &&
        typeof job.application_url === 'string' &&
        isHttpUrl(job.application_url);
      if (!qualifies) {
        await db().send(new TransactWriteCommand({ TransactItems: [due] }));
        result.dropped += 1;
        continue;
      }
      try {
        await sendMail(followUpMail(record, job, company, base, true));
      } catch (error) {
        // The due item stays: the next run tries again (same Message-ID, P106).
        logger.error('external apply reminder failed', { applicationId: record.id, error: error as Error });
        continue;
      }
      const previous = record.event_sequence ?? 0;
      const at = now().toISOString();
      try {
        await db().send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: statusMoveUpdate(record, {
                  field: 'external_apply_status',
                  from: 'CONTACTED',
                  to: 'REMINDED',
                  at,
                  previous,
                }),
              },
              due,
            ],
          }),
        );
        result.reminded += 1;
      } catch (error) {
        // Changed meanwhile (a click): the next run finds it no longer CONTACTED and drops the due item.
        if (!isConditionFailure(error)) throw error;
      }
    }
  }
  logger.info('external apply reminders', { ...result });
  return result;
}
