/**
 * Retention (D10): the personal data of applications created more than 180 days ago is deleted from
 * storage. The record keeps ids, statuses and timestamps; candidate, notes, links, answers, custom fields
 * and attachment metadata go, and so do the attachment objects. Applications holding personal data sit
 * in a sparse index (GSI4) spread over shards, oldest first, and leave it when purged, so each run reads
 * only what is due. Idempotent: objects are deleted before the record is cleared, and clearing is
 * conditional on the record still holding data; a run that stops half-way is completed by the next.
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ANONYMIZATION_AGE_DAYS, getApplicationRecord, updatedAtIndex } from '#applications/applications.js';
import { deleteAttachmentObjects } from '#applications/attachments.js';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { PERSONAL_DATA_SHARDS, indexKeys, keys } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

export interface RetentionResult {
  purged: number;
  objectsDeleted: number;
  /** Whether due applications remain for the next run (the batch limit was reached). */
  more: boolean;
}

export const PERSONAL_DATA_FIELDS = ['candidate', 'attachments', 'notes', 'social_links', 'screening_questions', 'custom_fields'] as const;

async function dueIds(shard: number, before: string, limit: number): Promise<{ ids: number[]; more: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'GSI4',
      KeyConditionExpression: 'GSI4PK = :pk AND GSI4SK < :before',
      ExpressionAttributeValues: { ':pk': `PII#${shard}`, ':before': before },
      Limit: limit,
    }),
  );
  const ids = (out.Items ?? []).map((item) => Number(String(item.PK).split('#')[1]));
  return { ids, more: Boolean(out.LastEvaluatedKey) };
}

async function purge(applicationId: number, at: string): Promise<number> {
  const record = await getApplicationRecord(applicationId);
  if (!record || record.personal_data_deleted_at) return 0;
  const objectKeys = (record.attachments ?? []).map((a) => a.key);
  await deleteAttachmentObjects(objectKeys);
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.application(applicationId),
        UpdateExpression: `REMOVE ${PERSONAL_DATA_FIELDS.map((f) => `#${f}`).join(', ')}, email_lc, GSI2PK, GSI4PK, GSI4SK SET #status = :anonymized, personal_data_deleted_at = :at, updated_at = :at, D2SK = :updated`,
        ConditionExpression: 'attribute_exists(GSI4PK)',
        ExpressionAttributeNames: { ...Object.fromEntries(PERSONAL_DATA_FIELDS.map((f) => [`#${f}`, f])), '#status': 'status' },
        ExpressionAttributeValues: { ':anonymized': 'anonymized', ':at': at, ':updated': updatedAtIndex(record, at).D2SK },
      }),
    );
  } catch (error) {
    if ((error as Error).name !== 'ConditionalCheckFailedException') throw error;
  }
  return objectKeys.length;
}

/** One retention run: purges up to `batchSize` due applications. */
export async function purgeExpiredPersonalData(options: { batchSize?: number } = {}): Promise<RetentionResult> {
  const batchSize = options.batchSize ?? 500;
  const current = now();
  const cutoff = new Date(current.getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
  // Sort keys are `<created_at>#<id>`; everything strictly before the cutoff instant is due.
  const before = indexKeys.createdSort(cutoff, 0);
  const result: RetentionResult = { purged: 0, objectsDeleted: 0, more: false };
  for (let shard = 0; shard < PERSONAL_DATA_SHARDS; shard++) {
    const remaining = batchSize - result.purged;
    if (remaining <= 0) {
      result.more = true;
      break;
    }
    const due = await dueIds(shard, before, remaining);
    for (const id of due.ids) {
      result.objectsDeleted += await purge(id, current.toISOString());
      result.purged += 1;
    }
    result.more ||= due.more;
  }
  logger.info('retention run', { ...result });
  return result;
}
