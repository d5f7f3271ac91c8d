/**
 * Creating an application (the create route only): validation of the parsed body, job and channel
 * resolution, attachments to S3, the write with its company total, the sync hand-off and the event.
 * Apart from `applications.ts` so that the read routes do not bundle the validator, the S3 upload and the
 * queue and topic clients.
 */
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import {
  ATTACHMENT_TYPES,
  checkAttachments,
  deleteAttachmentObjects,
  type FilePart,
  type IncomingAttachment,
} from '#applications/attachments.js';
import { storeAttachments } from '#applications/attachment-upload.js';
import { getChannel, getChannelBySlug, type TalentChannel } from '#applications/channels.js';
import { MAX_APPLICATION_BYTES, toApplicationItem, type ApplicationIn, type ApplicationRecord } from '#applications/applications.js';
import { loadApplicationInValidator } from '#applications/validators.generated.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { getCompanyRecord, syncActive, type CompanyRecord } from '#companies/companies.js';
import { ValidationError, type FieldErrors } from '#platform/errors.js';
import { publishEvent } from '#platform/events.js';
import { lazyValidator, toFieldErrors } from '#platform/field-errors.js';
import { nextId } from '#platform/ids.js';
import { findJobByExternalId, getJobs, type JobRecord } from '#jobs/jobs.js';
import { collections, keys } from '#platform/keys.js';
import { getPartner } from '#companies/partners.js';
import { enqueueSync, sweepGraceSeconds } from '#platform/sync-queue.js';

const ATTACHMENT_RECORD_BYTES = 700;

// Pure: a bundle whose route never validates this leaves the generated validator out (tree-shaking).
const validateApplicationIn = /* @__PURE__ */ lazyValidator(loadApplicationInValidator);

/** Validates a parsed body; returns the input and the attachments (Base64 ones and multipart files). */
export function parseApplication(
  fields: Record<string, unknown>,
  files: FilePart[],
): { input: ApplicationIn; attachments: IncomingAttachment[] } {
  const errors: FieldErrors = {};
  if (!validateApplicationIn(fields)) Object.assign(errors, toFieldErrors(validateApplicationIn.errors));
  const input = fields as ApplicationIn;
  const candidate = input.candidate as ApplicationIn['candidate'] | undefined;
  if (candidate && typeof candidate === 'object' && !candidate.full_name && !(candidate.first_name && candidate.last_name)) {
    errors['candidate.full_name'] = ['Give full_name, or first_name and last_name.'];
  }
  if (input.job === undefined && input.external_job_id === undefined) {
    errors.job = ['Give job or external_job_id.'];
  }
  // The format check admits forms (a leap second, an hour-only offset) that no clock can place.
  if (typeof input.applied_at === 'string' && !errors.applied_at && Number.isNaN(Date.parse(input.applied_at))) {
    errors.applied_at = ['Must be an ISO 8601 date-time such as 2026-05-01T10:00:00Z.'];
  }
  const attachments: IncomingAttachment[] = [
    ...(Array.isArray(input.attachments) ? input.attachments : []).map((a) => ({
      type: (a.type ?? 'other') as IncomingAttachment['type'],
      name: a.name,
      content_type: a.content_type,
      data: a.data,
    })),
    ...files.map((file) => ({
      type: ((ATTACHMENT_TYPES as readonly string[]).includes(file.field) ? file.field : 'other') as IncomingAttachment['type'],
      name: file.filename,
      content_type: file.contentType,
      data: file.data,
    })),
  ];
  // Attachment contents are checked only once their fields are well formed.
  if (!Object.keys(errors).some((path) => path.startsWith('attachments'))) Object.assign(errors, checkAttachments(attachments));
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { input, attachments };
}

/** D8: the job named by `job` and/or `external_job_id` must exist in the company and be the same. */
async function resolveJob(companyId: number, input: ApplicationIn): Promise<JobRecord> {
  const byId = input.job !== undefined ? (await getJobs(companyId, [input.job])).get(input.job) : undefined;
  if (input.job !== undefined && !byId) throw new ValidationError({ job: ['No such job for this company.'] });
  const byExternal = input.external_job_id !== undefined ? await findJobByExternalId(companyId, input.external_job_id) : undefined;
  if (input.external_job_id !== undefined && !byExternal)
    throw new ValidationError({ external_job_id: ['No job with this external id for this company.'] });
  if (byId && byExternal && byId.id !== byExternal.id) throw new ValidationError({ external_job_id: ['Names another job than "job".'] });
  return (byId ?? byExternal)!;
}

async function resolveChannel(input: ApplicationIn): Promise<TalentChannel | undefined> {
  if (input.talent_channel != null) {
    const channel = await getChannel(input.talent_channel);
    if (!channel) throw new ValidationError({ talent_channel: ['No such talent channel.'] });
    return channel;
  }
  return input.channel ? getChannelBySlug(input.channel) : undefined;
}

export interface CreatedApplication {
  record: ApplicationRecord;
  job: JobRecord;
  channel: TalentChannel | undefined;
}

/**
 * Creates an application: resolves job and channel (400 if they do not fit), stores the attachments,
 * writes the application with its company total in one transaction (removing the objects again if that
 * fails), and hands the id to the sync queue when the company's candidate sync is active.
 */
export async function createApplication(
  company: CompanyRecord,
  partnerId: number,
  input: ApplicationIn,
  attachments: IncomingAttachment[],
): Promise<CreatedApplication> {
  // The company is read afresh: the access check's copy may be cached and its entitlements stale.
  const [job, channel, partner, current] = await Promise.all([
    resolveJob(company.id, input),
    resolveChannel(input),
    getPartner(partnerId),
    getCompanyRecord(company.id),
  ]);
  const id = await nextId('application');
  // D12: the worker has something to do when the ATS sync is active or the e-mail fallback is entitled.
  const entitled = current ?? company;
  const syncDue = syncActive(entitled, 'candidate_sync') || entitled.entitlements.includes('email_fallback');
  const timestamp = now().toISOString();
  const record: ApplicationRecord = {
    id,
    company: company.id,
    job: job.id,
    talent_channel: channel?.id ?? null,
    external_id: null,
    external_job_id: input.external_job_id ?? null,
    application_url: input.application_url ?? null,
    agency_job_id: input.agency_job_id ?? null,
    partner_job_id: input.partner_job_id ?? null,
    partner_company_id: input.partner_company_id ?? null,
    partner_application_id: input.partner_application_id ?? null,
    candidate: input.candidate as Record<string, unknown>,
    applied_at: input.applied_at ? new Date(input.applied_at).toISOString() : timestamp,
    notes: input.notes ?? null,
    channel: input.channel ?? null,
    social_links: input.social_links ?? {},
    screening_questions: (input.screening_questions ?? []) as Record<string, string>[],
    custom_fields: input.custom_fields ?? {},
    attachments: [],
    import_source: 'api',
    status: 'active',
    sync_status: 'NOTSENT',
    email_sync_status: 'NOTSENT',
    external_apply_status: 'NOTSENT',
    failure_error: null,
    partner: partnerId,
    agency: partner?.kind === 'agency' ? partnerId : null,
    created_at: timestamp,
    updated_at: timestamp,
    ...(syncDue ? { sync_due_at: new Date(Date.parse(timestamp) + sweepGraceSeconds() * 1000).toISOString() } : {}),
  };
  // A DynamoDB item holds at most 400 KB: refuse, before anything is stored, what would not fit.
  const estimate = Buffer.byteLength(JSON.stringify(toApplicationItem(record))) + attachments.length * ATTACHMENT_RECORD_BYTES;
  if (estimate > MAX_APPLICATION_BYTES) {
    throw new ValidationError({
      body: [
        `The application without its files is ${Math.ceil(estimate / 1000)} KB; at most ${MAX_APPLICATION_BYTES / 1000} KB (notes, answers, custom fields and links) is accepted.`,
      ],
    });
  }
  const stored = await storeAttachments(company.id, id, attachments);
  record.attachments = stored;
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: config().tableName, Item: toApplicationItem(record), ConditionExpression: 'attribute_not_exists(PK)' } },
          {
            Update: {
              TableName: config().tableName,
              Key: keys.countOf(collections.companyApplications(company.id)),
              UpdateExpression: 'ADD #n :one',
              ExpressionAttributeNames: { '#n': 'count' },
              ExpressionAttributeValues: { ':one': 1 },
            },
          },
        ],
      }),
    );
  } catch (error) {
    await deleteAttachmentObjects(stored.map((a) => a.key));
    throw error;
  }
  if (syncDue) await enqueueSync(record.id);
  await publishEvent('application.created', company.id, {
    application_id: record.id,
    job_id: job.id,
    sync_status: record.sync_status,
    email_sync_status: record.email_sync_status,
  });
  return { record, job, channel };
}
