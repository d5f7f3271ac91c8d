/**
 * Orphan attachments (issue 12): a create uploads each object after writing a pending-upload marker, and
 * its transaction deletes the markers together with writing the application. A crash (or a failed
 * transaction) between upload and commit leaves an object whose marker is still there; once the marker is
 * due (`PENDING_UPLOAD_GRACE_SECONDS` after the upload, an hour by default) this reconciler deletes the
 * object, then the marker. It reads only due markers, through the DUE index.
 */
import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { deleteAttachmentObjects } from '#applications/attachments.js';
import { dueKeys } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { PENDING_UPLOAD_SHARDS, dueSort, keys, pendingUploadShard } from '#platform/keys.js';
import { logger } from '#platform/logger.js';

const PREFIX = 'PENDINGUPLOAD#';

export async function reconcilePendingUploads(now = Date.now()): Promise<{ deleted: number }> {
  const due = dueSort(Math.floor(now / 1000));
  let deleted = 0;
  for (let shard = 0; shard < PENDING_UPLOAD_SHARDS; shard++) {
    const markers = await dueKeys(pendingUploadShard(shard), due);
    const objectKeys = markers.map((m) => String(m.PK).slice(PREFIX.length));
    if (!objectKeys.length) continue;
    // Objects first: a marker is removed only once its object is gone, so a crash here is simply retried.
    await deleteAttachmentObjects(objectKeys);
    for (const objectKey of objectKeys)
      await db().send(new DeleteCommand({ TableName: config().tableName, Key: keys.pendingUpload(objectKey) }));
    deleted += objectKeys.length;
  }
  if (deleted) logger.info('orphan attachments deleted', { count: deleted });
  return { deleted };
}
