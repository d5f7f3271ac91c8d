/**
 * Storing submitted attachments in S3 (create route only). Apart from `attachments.ts` because of
 * `@aws-sdk/lib-storage`, which declares no `sideEffects: false`: any bundle that imports it keeps it,
 * so only the create route may reach this module.
 */
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { Upload } from '@aws-sdk/lib-storage';
import { config, db, s3 } from '#platform/clients.js';
import { nextId } from '#platform/ids.js';
import { keys } from '#platform/keys.js';
import { normaliseMediaType } from '#platform/web-formats.js';
import {
  attachmentKey,
  deleteAttachmentObjects,
  isStaged,
  mediaType,
  pendingUploadItem,
  type AttachmentStager,
  type IncomingAttachment,
  type StagedFile,
  type StoredAttachment,
} from '#applications/attachments.js';

/** Bytes of a staged object's start kept for the content check (magic numbers need at most 16). */
const HEAD_BYTES = 16;

/**
 * The attachments of one create, uploaded while its body is read (the lean body path, issue 15). The
 * application's id is taken when the first attachment arrives (its objects' keys name it); every object
 * gets its pending-upload marker before its upload starts (P107). `release` removes, objects first and
 * then markers, whatever the create did not commit: all of it when the request is refused.
 */
export class AttachmentStaging implements AttachmentStager {
  private id: Promise<number> | undefined;
  private readonly keys: string[] = [];
  private readonly committed = new Set<string>();

  constructor(private readonly companyId: number) {}

  /** The id of the application being created (taken on first use). */
  applicationId(): Promise<number> {
    return (this.id ??= nextId('application'));
  }

  async stage(bytes: AsyncIterable<Buffer>, contentType?: string): Promise<StagedFile> {
    const key = attachmentKey(this.companyId, await this.applicationId());
    this.keys.push(key);
    await db().send(new PutCommand({ TableName: config().tableName, Item: pendingUploadItem(key) }));
    const hash = createHash('sha256');
    let size = 0;
    let head = Buffer.alloc(0);
    async function* counted(): AsyncGenerator<Buffer> {
      for await (const chunk of bytes) {
        hash.update(chunk);
        size += chunk.length;
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        yield chunk;
      }
    }
    await upload(key, Readable.from(counted(), { objectMode: false }), mediaType(contentType ?? '') || 'application/octet-stream');
    return { staged: true, key, size, submittedLength: size, wellFormed: true, head, checksum: hash.digest('base64') };
  }

  /** The create committed these objects (its transaction cleared their markers). */
  commit(objectKeys: string[]): void {
    for (const key of objectKeys) this.committed.add(key);
  }

  /** Removes the objects not committed, then their markers. */
  async release(): Promise<void> {
    const dropped = this.keys.filter((key) => !this.committed.has(key));
    this.keys.length = 0;
    if (!dropped.length) return;
    await deleteAttachmentObjects(dropped);
    for (const key of dropped) await db().send(new DeleteCommand({ TableName: config().tableName, Key: keys.pendingUpload(key) }));
  }
}

/**
 * Uploads the attachments one at a time, each decoded only while it is uploaded, so a large body is not
 * held twice; staged ones (already in S3) are only recorded. Returns the stored records; on failure removes
 * what it had uploaded and rethrows (staged objects are their staging's to remove).
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
      if (isStaged(attachment.data)) {
        const { key, size, checksum } = attachment.data;
        stored.push({
          type: attachment.type,
          name: attachment.name,
          content_type: storedContentType(attachment.content_type),
          size,
          checksum,
          key,
        });
        continue;
      }
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
        content_type: storedContentType(attachment.content_type),
        size: bytes.length,
        checksum,
        key,
      });
      // The submitted copy is no longer needed; letting it go keeps peak memory near one copy of the body.
      attachments[i] = { ...attachment, data: '' };
    }
    return stored;
  } catch (error) {
    await deleteAttachmentObjects(stored.filter((_, i) => !isStaged(attachments[i]?.data)).map((a) => a.key));
    throw error;
  }
}

/** Stored (and later written into MIME headers) only in its normalised form. */
const storedContentType = (contentType: string) => normaliseMediaType(contentType) ?? mediaType(contentType);

/**
 * Parts of a multipart upload; large files go up in parts (S3 checks each part's SHA-256). S3's smallest
 * part: a streamed upload holds one part being filled and one in flight.
 */
const PART_BYTES = 5 * 1024 * 1024;

/** Uploads a stream of unknown length: one PutObject when it fits one part, else a multipart upload. */
async function upload(key: string, body: Readable, contentType: string): Promise<void> {
  await new Upload({
    client: s3(),
    params: {
      Bucket: config().bucketName,
      Key: key,
      Body: body,
      ContentType: contentType,
      ServerSideEncryption: 'AES256',
      ChecksumAlgorithm: 'SHA256',
    },
    partSize: PART_BYTES,
    queueSize: 1,
    leavePartsOnError: false,
  }).done();
}

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
