/**
 * Storing submitted attachments in S3 (create route only). Apart from `attachments.ts` because of
 * `@aws-sdk/lib-storage`, which declares no `sideEffects: false`: any bundle that imports it keeps it,
 * so only the create route may reach this module.
 */
import { createHash } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { Upload } from '@aws-sdk/lib-storage';
import { config, db, s3 } from '#platform/clients.js';
import { normaliseMediaType } from '#platform/web-formats.js';
import {
  attachmentKey,
  deleteAttachmentObjects,
  mediaType,
  pendingUploadItem,
  type IncomingAttachment,
  type StoredAttachment,
} from '#applications/attachments.js';

/**
 * Uploads the attachments one at a time, each decoded only while it is uploaded, so a large body is not
 * held twice. Returns the stored records; on failure removes what it had uploaded and rethrows.
 */
export async function storeAttachments(
  companyId: number,
  applicationId: number,
  attachments: IncomingAttachment[],
): Promise<StoredAttachment[]> {
  const stored: StoredAttachment[] = [];
  try {
    for (let i = 0; i < attachments.length; i++) {
      const attachment = attachments[i];
      const bytes = typeof attachment.data === 'string' ? Buffer.from(attachment.data, 'base64') : attachment.data;
      const checksum = createHash('sha256').update(bytes).digest('base64');
      const key = attachmentKey(companyId, applicationId);
      // The marker first: an object is never in the bucket without a record or a marker that finds it.
      await db().send(new PutCommand({ TableName: config().tableName, Item: pendingUploadItem(key) }));
      await putObject(key, bytes, mediaType(attachment.content_type), checksum);
      stored.push({
        type: attachment.type,
        name: attachment.name,
        // Stored (and later written into MIME headers) only in its normalised form.
        content_type: normaliseMediaType(attachment.content_type) ?? mediaType(attachment.content_type),
        size: bytes.length,
        checksum,
        key,
      });
      // The submitted copy is no longer needed; letting it go keeps peak memory near one copy of the body.
      attachments[i] = { ...attachment, data: '' };
    }
    return stored;
  } catch (error) {
    await deleteAttachmentObjects(stored.map((a) => a.key));
    throw error;
  }
}

/** Parts of a multipart upload; large files go up in parts (S3 checks each part's SHA-256). */
const PART_BYTES = 8 * 1024 * 1024;

async function putObject(key: string, bytes: Buffer, contentType: string, checksum: string): Promise<void> {
  const params = { Bucket: config().bucketName, Key: key, Body: bytes, ContentType: contentType, ServerSideEncryption: 'AES256' as const };
  if (bytes.length <= PART_BYTES) {
    await s3().send(new PutObjectCommand({ ...params, ChecksumSHA256: checksum }));
    return;
  }
  // One part in flight at a time: parts are views of the same buffer, so memory stays at one copy.
  await new Upload({
    client: s3(),
    params: { ...params, ChecksumAlgorithm: 'SHA256' },
    partSize: PART_BYTES,
    queueSize: 1,
    leavePartsOnError: false,
  }).done();
}
