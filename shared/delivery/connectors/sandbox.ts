/**
 * The `sandbox` ATS: always connected, no credentials, for test companies and the local demo. What it
 * does is driven by the data (issue 4):
 * - candidate e-mail whose local part contains `+duplicate` → duplicate candidate;
 * - job whose external id starts with `closed-` → job not published;
 * - e-mail containing `+flaky` → two transient failures, then accepted;
 * - e-mail containing `+down` → always transient;
 * - e-mail containing `+ratelimited` → rate limited on the first call, then accepted;
 * - anything else → accepted with a generated ATS id.
 * Its outcome reading (D21, P300): `SANDBOX_OUTCOME_SECONDS` (default 5) after it accepted an application, one
 * whose e-mail contains `+hired` is HIRED (stage "Hired"), `+rejected` REJECTED ("Rejected"), any other stays
 * PENDING ("Applied"); before that every one is PENDING ("Applied").
 * Its job feed and its "credentials" are set per company (`setSandboxAts`): the feed it publishes (none
 * by default: the import then changes nothing, and jobs come from the admin file import), a malformed
 * feed, or rejected credentials, so that the job import and the lifecycle can be tried with it too.
 * Like a real ATS that honours a client reference, it deduplicates on the submission's reference, and it
 * records what it received (in the service table, expiring after 30 days) so tests can assert the exact
 * payload; attachment bytes are recorded by size and SHA-256. One item per reference (P242) counts the calls
 * made under it and, once one was accepted, holds the receipt: an accepted call is one write.
 */
import { createHash, randomUUID } from 'node:crypto';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure } from '#platform/errors.js';
import { config, db } from '#platform/clients.js';
import { isoNow, now } from '#platform/clock.js';
import { expiringAt } from '#platform/keys.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type OutcomeReading,
  type OutcomeRef,
  type Submission,
} from '#delivery/connectors/connector.js';
import { sandboxDescriptor } from '#delivery/connectors/sandbox-descriptor.js';
import { recordSimulatedCall } from '#delivery/ats-calls.js';

const RECORD_DAYS = 30;
const key = (companyId: number, sk: string) => ({ PK: `SANDBOXATS#${companyId}`, SK: sk });

export interface SandboxReceipt {
  external_id: string;
  reference: string;
  job_external_id: string;
  candidate: Record<string, unknown>;
  screening_answers: Record<string, string>[];
  custom_fields: Record<string, unknown>;
  social_links: Record<string, string>;
  notes: string | null;
  applied_at: string;
  source: string | null;
  attachments: { type: string; name: string; content_type: string; size: number; sha256: string }[];
  received_at: string;
}

/** The item of one reference: `attempts` (every call under it) and, once a call was accepted, the receipt. */
const referenceKey = (companyId: number, reference: string) => key(companyId, `RECEIPT#${reference}`);
const expiresAt = () => expiringAt(Math.floor(Date.now() / 1000) + RECORD_DAYS * 86400).expires_at;

/**
 * Records one call under a reference, and the receipt with it when `receipt` is given and none is there yet:
 * one conditional UpdateItem on the count read before, so that racing calls each count once and one receipt
 * wins. False when another call came in between (the caller reads again and decides again).
 */
async function recordCall(companyId: number, reference: string, seen: number, receipt?: SandboxReceipt): Promise<boolean> {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':one': 1, ':expires': expiresAt() };
  const set = ['expires_at = :expires'];
  Object.entries(receipt ?? {}).forEach(([field, value], i) => {
    names[`#r${i}`] = field;
    values[`:r${i}`] = value;
    set.push(`#r${i} = :r${i}`);
  });
  if (seen) values[':seen'] = seen;
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: referenceKey(companyId, reference),
        UpdateExpression: `ADD attempts :one SET ${set.join(', ')}`,
        ConditionExpression: `${seen ? 'attempts = :seen' : 'attribute_not_exists(attempts)'}${receipt ? ' AND attribute_not_exists(external_id)' : ''}`,
        ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

async function hash(stream: AsyncIterable<Buffer | string>): Promise<{ size: number; sha256: string }> {
  const digest = createHash('sha256');
  let size = 0;
  for await (const chunk of stream) {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    size += bytes.length;
    digest.update(bytes);
  }
  return { size, sha256: digest.digest('hex') };
}

/** What the sandbox ATS does for one company beyond its data-driven rules. */
export interface SandboxAtsState {
  /** The published jobs it lists; undefined: no feed (the import changes nothing). */
  feed?: JobInput[];
  /** Its feed is malformed (the import fails). */
  feedMalformed?: boolean;
  /** It rejects the company's credentials (submissions, the feed and the credentials check). */
  rejectCredentials?: boolean;
  /** Its outcome readings fail as an ATS that is down does (transient), D21. */
  outcomesDown?: boolean;
}

/** Sets the sandbox ATS's feed and behaviour for a company (the local demo and the tests). */
export async function setSandboxAts(companyId: number, state: SandboxAtsState): Promise<void> {
  await db().send(new PutCommand({ TableName: config().tableName, Item: { ...key(companyId, 'STATE'), ...state } }));
}

async function sandboxState(companyId: number): Promise<SandboxAtsState> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: key(companyId, 'STATE'), ConsistentRead: true }));
  return (out.Item ?? {}) as SandboxAtsState;
}

const rejected = () => new ConnectorError('credentials_rejected', 'The sandbox ATS rejected the credentials.');

/**
 * What the sandbox does with the `calls`-th call under a submission's reference: an error, or undefined
 * (accepted, or the first submission given back when `fresh` is false: a real ATS that deduplicates answers
 * with the application it has).
 */
async function decide(submission: Submission, calls: number, fresh: boolean): Promise<ConnectorError | undefined> {
  if ((await sandboxState(submission.company.id)).rejectCredentials) return rejected();
  if (!fresh) return undefined;
  const email = String(submission.candidate.email ?? '');
  const localPart = email.split('@')[0] ?? '';
  if (submission.jobExternalId.startsWith('closed-'))
    return new ConnectorError('job_not_published', 'The job is not published in the sandbox ATS.');
  if (localPart.includes('+duplicate')) return new ConnectorError('duplicate', 'The candidate has already applied in the sandbox ATS.');
  if (email.includes('+down')) return new ConnectorError('transient', 'The sandbox ATS is unavailable.');
  if (email.includes('+flaky') && calls <= 2) return new ConnectorError('transient', 'The sandbox ATS timed out.');
  // `+ratelimited` waits a second; `+ratelimited3600` as long as it says.
  const limited = /\+ratelimited(\d{0,6})/.exec(localPart);
  if (limited && calls <= 1) return new ConnectorError('rate_limited', 'The sandbox ATS is rate limiting.', Number(limited[1] || 1));
  return undefined;
}

/** The receipt of an accepted submission: what was received, attachments by size and SHA-256. */
async function receiptOf(submission: Submission): Promise<SandboxReceipt> {
  const attachments = [];
  for (const attachment of submission.attachments) {
    attachments.push({
      type: attachment.type,
      name: attachment.name,
      content_type: attachment.content_type,
      ...(await hash(await attachment.open())),
    });
  }
  return {
    external_id: `sbx-${randomUUID()}`,
    reference: submission.reference,
    job_external_id: submission.jobExternalId,
    candidate: submission.candidate,
    screening_answers: submission.screeningAnswers,
    custom_fields: submission.customFields,
    social_links: submission.socialLinks,
    notes: submission.notes,
    applied_at: submission.appliedAt,
    source: submission.source,
    attachments,
    received_at: isoNow(),
  };
}

/** The HTTP status a real ATS would answer with for each of the sandbox's outcomes (its simulated call, issue 44). */
const SIMULATED_STATUS: Record<ConnectorError['kind'], number> = {
  duplicate: 409,
  job_not_published: 422,
  invalid_data: 400,
  rate_limited: 429,
  transient: 503,
  credentials_rejected: 401,
  attachment_rejected: 413,
};

/** The field names a submission sends (its JSON as the sandbox would receive it), never values. */
function simulatedFields(submission: Submission): string[] {
  const nested = (name: string, value: Record<string, unknown>) => Object.keys(value).map((key) => `${name}.${key}`);
  return [
    'reference',
    'job_external_id',
    'candidate',
    ...nested('candidate', submission.candidate),
    'screening_answers',
    'custom_fields',
    ...nested('custom_fields', submission.customFields),
    'social_links',
    'notes',
    'applied_at',
    'source',
    ...(submission.attachments.length ? ['attachments'] : []),
  ];
}

/** Reports the simulated call to the open delivery log scope: the answer echoes the candidate, as many ATSs do. */
function simulated(submission: Submission, started: number, outcome: ConnectorError | string): void {
  const failed = outcome instanceof ConnectorError;
  recordSimulatedCall({
    method: 'POST',
    url: `https://sandbox.ats.invalid/companies/${submission.company.id}/applications`,
    status: failed ? SIMULATED_STATUS[outcome.kind] : 201,
    started,
    fields_sent: simulatedFields(submission),
    response: failed
      ? { error: { code: outcome.kind, message: outcome.message }, reference: submission.reference }
      : { id: outcome, reference: submission.reference, candidate: submission.candidate },
  });
}

export const sandboxConnector: AtsConnector = {
  ...sandboxDescriptor,

  async submitApplication(submission: Submission) {
    const companyId = submission.company.id;
    const { reference } = submission;
    const started = Date.now();
    let accepted: SandboxReceipt | undefined;
    for (;;) {
      // Read the reference's item, decide, then write the call (and the receipt, if accepted) at once.
      const current = await db().send(
        new GetCommand({ TableName: config().tableName, Key: referenceKey(companyId, reference), ConsistentRead: true }),
      );
      const seen = Number(current.Item?.attempts ?? 0);
      const calls = seen + 1;
      const existing = current.Item?.external_id;
      const outcome = await decide(submission, calls, existing === undefined);
      if (outcome instanceof ConnectorError || existing !== undefined) {
        if (!(await recordCall(companyId, reference, seen))) continue;
        simulated(submission, started, outcome ?? String(existing));
        if (outcome instanceof ConnectorError) throw outcome;
        return { externalId: String(existing) };
      }
      accepted ??= await receiptOf(submission);
      if (await recordCall(companyId, reference, seen, accepted)) {
        simulated(submission, started, accepted.external_id);
        return { externalId: accepted.external_id };
      }
    }
  },

  async listPublishedJobs(company: CompanyRecord) {
    const started = Date.now();
    const state = await sandboxState(company.id);
    const answer = (status: number, response: unknown) =>
      recordSimulatedCall({
        method: 'GET',
        url: `https://sandbox.ats.invalid/companies/${company.id}/jobs`,
        status,
        started,
        fields_sent: [],
        response,
      });
    if (state.rejectCredentials) {
      answer(401, { error: { code: 'credentials_rejected' } });
      throw rejected();
    }
    if (state.feedMalformed) {
      answer(200, 'malformed feed');
      throw new ConnectorError('invalid_data', 'The sandbox ATS feed is malformed.');
    }
    answer(200, { jobs: (state.feed ?? []).length });
    return state.feed;
  },

  async validateCredentials(_credentials, company: CompanyRecord) {
    if ((await sandboxState(company.id)).rejectCredentials) throw rejected();
  },

  async readOutcome(ref: OutcomeRef, _credentials, company: CompanyRecord): Promise<OutcomeReading> {
    const started = Date.now();
    // Issue 44 (D23): the simulated read is reported like a real ATS call, every reading logged (P350).
    const simulated = (status: number, response: unknown) =>
      recordSimulatedCall({
        method: 'GET',
        url: `https://sandbox.ats.invalid/companies/${company.id}/applications/${encodeURIComponent(ref.externalId)}`,
        status,
        started,
        fields_sent: [],
        response,
      });
    const state = await sandboxState(company.id);
    if (state.rejectCredentials) {
      simulated(401, { error: { code: 'credentials_rejected' } });
      throw rejected();
    }
    if (state.outcomesDown) {
      simulated(503, { error: { code: 'unavailable' } });
      throw new ConnectorError('transient', 'The sandbox ATS is unavailable.');
    }
    const out = await db().send(new GetCommand({ TableName: config().tableName, Key: referenceKey(company.id, ref.reference) }));
    if (out.Item?.external_id !== ref.externalId) {
      simulated(404, { error: { code: 'not_found' } });
      throw new ConnectorError('invalid_data', 'The sandbox ATS has no such application.');
    }
    const settled = now().getTime() - Date.parse(String(out.Item.received_at)) >= sandboxOutcomeSeconds() * 1000;
    const email = String((out.Item.candidate as Record<string, unknown> | undefined)?.email ?? '');
    const reading: OutcomeReading =
      settled && email.includes('+hired')
        ? { outcome: 'HIRED', stage: 'Hired' }
        : settled && email.includes('+rejected')
          ? { outcome: 'REJECTED', stage: 'Rejected' }
          : { outcome: 'PENDING', stage: 'Applied' };
    simulated(200, { id: ref.externalId, stage: reading.stage });
    return reading;
  },
};

/** Seconds after its acceptance at which the sandbox moves an application (P300). */
const sandboxOutcomeSeconds = () => {
  const seconds = Number(process.env.SANDBOX_OUTCOME_SECONDS ?? 5);
  return Number.isFinite(seconds) && seconds >= 0 ? seconds : 5;
};

/** What the sandbox ATS received for a company (tests and the local demo read it). */
export async function sandboxReceipts(company: Pick<CompanyRecord, 'id'>): Promise<SandboxReceipt[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :receipt)',
      ExpressionAttributeValues: { ':pk': `SANDBOXATS#${company.id}`, ':receipt': 'RECEIPT#' },
    }),
  );
  // A reference whose calls all failed has a count and no receipt.
  return (out.Items ?? [])
    .filter((item) => item.external_id !== undefined)
    .map(({ PK, SK, expires_at, attempts, ...receipt }) => receipt as SandboxReceipt);
}

/** How many times the sandbox was asked to submit under a reference. */
export async function sandboxCalls(company: Pick<CompanyRecord, 'id'>, reference: string): Promise<number> {
  const out = await db().send(
    new GetCommand({ TableName: config().tableName, Key: referenceKey(company.id, reference), ConsistentRead: true }),
  );
  return Number(out.Item?.attempts ?? 0);
}
