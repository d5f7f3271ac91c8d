/**
 * Retention (D10): the personal data of applications created more than 180 days ago is deleted from
 * storage. The record keeps ids, statuses and timestamps; candidate, notes, links, answers, custom fields
 * and attachment metadata go, and so do the attachment objects. Each run walks every company's applications
 * oldest first from where its last run stopped (the application store's retention mark, P233), so it reads
 * only what is due and no index entry is written for it. Idempotent: objects are deleted before the record
 * is cleared, clearing is conditional on the record still holding data, and the mark moves only past
 * applications purged; a run that stops half-way is completed by the next.
 */
import { advanceRetentionMark, clearPersonalData, getApplicationRecord, personalDataDue } from '#applications/application-store.js';
import { ANONYMIZATION_AGE_DAYS } from '#applications/applications.js';
import { deleteAttachmentObjects } from '#applications/attachments.js';
import { allCompanyIds } from '#companies/company-store.js';
import { now } from '#platform/clock.js';
import { logger } from '#platform/logger.js';
import { deleteDeliveryLog } from '#delivery/delivery-log.js';

export interface RetentionResult {
  purged: number;
  objectsDeleted: number;
  /** Whether due applications remain for the next run (the batch limit was reached). */
  more: boolean;
}

/** What retention removes (D10); with it the ATS's stage name (D21: the outcome stays). */
export const PERSONAL_DATA_FIELDS = [
  'candidate',
  'attachments',
  'notes',
  'social_links',
  'screening_questions',
  'custom_fields',
  'outcome_stage',
] as const;

/** Purges one application; whether it held personal data, and how many objects went with it. */
async function purge(applicationId: number, at: string): Promise<{ purged: boolean; objects: number }> {
  const record = await getApplicationRecord(applicationId);
  if (!record || record.personal_data_deleted_at) return { purged: false, objects: 0 };
  const objectKeys = (record.attachments ?? []).map((a) => a.key);
  await deleteAttachmentObjects(objectKeys);
  // Issue 44 (D23): the delivery log (what was sent and answered about the candidate) goes before the record is
  // cleared, as the objects do, so that a run that stops between the two leaves the application due.
  await deleteDeliveryLog(applicationId);
  await clearPersonalData(record, PERSONAL_DATA_FIELDS, at);
  return { purged: true, objects: objectKeys.length };
}

/** One retention run: purges up to `batchSize` due applications. */
export async function purgeExpiredPersonalData(options: { batchSize?: number } = {}): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 500;
  const current = now();
  const cutoff = new Date(current.getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
  const result: RetentionResult = { purged: 0, objectsDeleted: 0, more: false };
  for (const companyId of await allCompanyIds()) {
    const remaining = batchSize - result.purged;
    if (remaining <= 0) {
      result.more = true;
      break;
    }
    const due = await personalDataDue(companyId, cutoff, remaining);
    for (const id of due.ids) {
      const done = await purge(id, current.toISOString());
      result.objectsDeleted += done.objects;
      if (done.purged) result.purged += 1;
    }
    if (due.last) await advanceRetentionMark(companyId, due.last);
    result.more ||= due.more;
  }
  logger.info('retention run', { ...result });
  return result;
}
