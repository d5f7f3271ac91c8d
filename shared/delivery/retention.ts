/**
 * Retention (D10): the personal data of applications created more than 180 days ago is deleted from
 * storage. The record keeps ids, statuses and timestamps; candidate, notes, links, answers, custom fields
 * and attachment metadata go, and so do the attachment objects. Applications holding personal data sit
 * in a sparse index (the application store's personal-data index) spread over shards, oldest first, and leave it when purged, so each run reads
 * only what is due. Idempotent: objects are deleted before the record is cleared, and clearing is
 * conditional on the record still holding data; a run that stops half-way is completed by the next.
 */
import { clearPersonalData, getApplicationRecord, personalDataDueIds } from '#applications/application-store.js';
import { ANONYMIZATION_AGE_DAYS } from '#applications/applications.js';
import { deleteAttachmentObjects } from '#applications/attachments.js';
import { now } from '#platform/clock.js';
import { PERSONAL_DATA_SHARDS } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

export interface RetentionResult {
  purged: number;
  objectsDeleted: number;
  /** Whether due applications remain for the next run (the batch limit was reached). */
  more: boolean;
}

export const PERSONAL_DATA_FIELDS = ['candidate', 'attachments', 'notes', 'social_links', 'screening_questions', 'custom_fields'] as const;

async function purge(applicationId: number, at: string): Promise<number> {
  const record = await getApplicationRecord(applicationId);
  if (!record || record.personal_data_deleted_at) return 0;
  const objectKeys = (record.attachments ?? []).map((a) => a.key);
  await deleteAttachmentObjects(objectKeys);
  await clearPersonalData(record, PERSONAL_DATA_FIELDS, at);
  return objectKeys.length;
}

/** One retention run: purges up to `batchSize` due applications. */
export async function purgeExpiredPersonalData(options: { batchSize?: number } = {}): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 500;
  const current = now();
  const cutoff = new Date(current.getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
  const result: RetentionResult = { purged: 0, objectsDeleted: 0, more: false };
  for (let shard = 0; shard < PERSONAL_DATA_SHARDS; shard++) {
    const remaining = batchSize - result.purged;
    if (remaining <= 0) {
      result.more = true;
      break;
    }
    const due = await personalDataDueIds(shard, cutoff, remaining);
    for (const id of due.ids) {
      result.objectsDeleted += await purge(id, current.toISOString());
      result.purged += 1;
    }
    result.more ||= due.more;
  }
  logger.info('retention run', { ...result });
  return result;
}
