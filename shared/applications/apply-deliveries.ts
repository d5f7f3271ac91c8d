/**
 * Applications that arrive through an apply channel (issue 23 item 2, P202–P204): a job board posts to the
 * URL of `apply_webhooks`, whose token (checked by `verifyApplyToken`) names the company, the job and the
 * channel. This module is the domain side of that endpoint, without HTTP: whether the job still takes
 * applications, whether a delivery was received before, and the create itself, which is `createApplication`
 * (same validation, attachments, transaction, outbox event and sync hand-off as POST /applications/) with
 * `import_source: apply_webhook` and the delivery's replay markers written in its transaction.
 *
 * Replay markers (no personal data, expiring):
 * - by delivery id (`webhook-id` of Standard Webhooks): channel, company and the SHA-256 of the id, kept
 *   `DELIVERY_MARKER_DAYS`, so a sender's retries (new timestamp and signature, same id) find it;
 * - by the board's duplicate window (Indeed: same job and e-mail within 120 days): channel, company, job and
 *   an HMAC of the lower-cased e-mail under a key derived from the cursor secret, valid until the window ends.
 * Both are conditional puts in the create's transaction, so two concurrent deliveries of the same application
 * create one; the loser reads the marker and answers as for a replay.
 */
import { createHash, createHmac } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { createApplication, parseApplication, type CreatedApplication } from '#applications/application-create.js';
import type { FilePart } from '#applications/attachments.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { getCompanyRecord } from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { ApiError, NotFoundError, ValidationError, isConditionFailure } from '#platform/errors.js';
import { expiringAt, keys, type Key } from '#platform/keys.js';
import { derivedSecretKey } from '#platform/derived-keys.js';
import { getJobs } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import type { VerifiedApplyToken } from '#jobs/apply-links.js';

/** How long a delivery id is remembered: longer than any sender retries one delivery (ours: about 29 h). */
export const DELIVERY_MARKER_DAYS = 7;
const DAY_SECONDS = 86_400;

/** 410: the job of the URL no longer takes applications (not `active`, or its company deactivated or deleted). */
export class ApplyTargetGoneError extends ApiError {
  constructor(detail = 'This job no longer takes applications.') {
    super(410, 'job_closed', detail);
  }
}

/** What identifies a delivery for replays; each part is optional (a board may send no delivery id). */
export interface DeliveryIdentity {
  /** The channel's own delivery id (`webhook-id`). */
  deliveryId?: string;
  /** The board's duplicate window: the candidate's e-mail and the window's length in days. */
  duplicateWindow?: { email: string; days: number };
}

interface Marker {
  key: Key;
  /** Epoch seconds until which the marker counts (a TTL deletion may come days later). */
  validUntil: number;
}

const sha256 = (value: string) => createHash('sha256').update(value, 'utf8').digest('base64url');

const emailHash = (email: string) =>
  createHmac('sha256', derivedSecretKey('his-apply-duplicate-v1')).update(email.trim().toLowerCase(), 'utf8').digest('base64url');

function markersOf(target: VerifiedApplyToken, identity: DeliveryIdentity): Marker[] {
  const nowSeconds = Math.floor(now().getTime() / 1000);
  const channelId = target.channel.channel_id;
  const markers: Marker[] = [];
  if (identity.deliveryId !== undefined)
    markers.push({
      key: keys.applyDelivery(channelId, target.companyId, sha256(identity.deliveryId)),
      validUntil: nowSeconds + DELIVERY_MARKER_DAYS * DAY_SECONDS,
    });
  if (identity.duplicateWindow)
    markers.push({
      key: keys.applyDuplicate(channelId, target.companyId, target.jobId, emailHash(identity.duplicateWindow.email)),
      validUntil: nowSeconds + identity.duplicateWindow.days * DAY_SECONDS,
    });
  return markers;
}

/** The application an earlier delivery with this identity created, if one did (markers read consistently). */
export async function findEarlierDelivery(target: VerifiedApplyToken, identity: DeliveryIdentity): Promise<number | undefined> {
  const nowSeconds = Math.floor(now().getTime() / 1000);
  for (const marker of markersOf(target, identity)) {
    const out = await db().send(new GetCommand({ TableName: config().tableName, Key: marker.key, ConsistentRead: true }));
    if (out.Item && Number(out.Item.valid_until) > nowSeconds) return Number(out.Item.application_id);
  }
  return undefined;
}

/**
 * The company and job a verified token names, if the job still takes applications: a job that is gone is a
 * 404 (an invalid job), one no longer `active` or of a deactivated or deleted company (D17) a 410.
 */
export async function applyTarget(target: VerifiedApplyToken): Promise<{ company: CompanyRecord; job: JobRecord }> {
  const [company, jobs] = await Promise.all([getCompanyRecord(target.companyId), getJobs(target.companyId, [target.jobId])]);
  const job = jobs.get(target.jobId);
  if (!company || !job) throw new NotFoundError();
  if (company.status === 'deactivated' || company.status === 'deleted' || job.status !== 'active') throw new ApplyTargetGoneError();
  return { company, job };
}

export type DeliveryOutcome = { created: CreatedApplication } | { duplicateOf: number };

/**
 * Validates `fields` (our application JSON; the job, `channel` and `talent_channel` are set here from the
 * token, so a body cannot name another job or channel) and creates the application with the delivery's
 * markers in its transaction. A delivery that a concurrent one beat answers as a replay.
 */
export async function createFromDelivery(
  target: VerifiedApplyToken,
  company: CompanyRecord,
  fields: Record<string, unknown>,
  files: FilePart[],
  identity: DeliveryIdentity,
): Promise<DeliveryOutcome> {
  if (fields.job !== undefined && fields.job !== target.jobId)
    throw new ValidationError({ job: ['The job is the one of the apply URL; leave job out.'] });
  fields.job = target.jobId;
  fields.channel = target.channel.slug;
  fields.talent_channel = target.channel.channel_id;
  const { input, attachments } = parseApplication(fields, files);
  const markers = markersOf(target, identity);
  const alsoWrite = (record: ApplicationRecord) =>
    markers.map((marker) => ({
      Put: {
        TableName: config().tableName,
        Item: { ...marker.key, application_id: record.id, valid_until: marker.validUntil, ...expiringAt(marker.validUntil) },
        // An expired window's marker may still be there (TTL deletes late): it is overwritten.
        ConditionExpression: 'attribute_not_exists(PK) OR valid_until <= :now',
        ExpressionAttributeValues: { ':now': Math.floor(now().getTime() / 1000) },
      },
    }));
  try {
    return {
      created: await createApplication(company, company.partner, input, attachments, undefined, {
        importSource: 'apply_webhook',
        alsoWrite,
      }),
    };
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
    const earlier = await findEarlierDelivery(target, identity);
    if (earlier === undefined) throw error;
    return { duplicateOf: earlier };
  }
}
