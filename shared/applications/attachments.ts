/**
 * Attachments (D8, issue 3): validated before anything is written (Base64 well formed, content type
 * permitted, bytes matching the type's magic number), then stored in S3 under a tenant-scoped key with
 * server-side encryption. Records keep type, name, content type, size, checksum and object key; responses
 * show only type, name and content type.
 */
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { DeleteObjectsCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { config, s3 } from '#platform/clients.js';
import { keys, pendingUploadDue } from '#platform/keys.js';
import { fieldErrors, type FieldErrors } from '#platform/errors.js';
import { parseMediaType } from '#platform/web-formats.js';

export const ATTACHMENT_TYPES = ['cv', 'cover_letter', 'certificate', 'work_sample', 'photo', 'other'] as const;
export type AttachmentType = (typeof ATTACHMENT_TYPES)[number];

const ZIP = [0x50, 0x4b, 0x03, 0x04];
const OLE = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

/** Permitted content types and the signatures their bytes must start with (none for plain text). */
export const CONTENT_TYPES: Record<string, number[][] | null> = {
  'application/pdf': [[0x25, 0x50, 0x44, 0x46, 0x2d]],
  'application/msword': [OLE],
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': [ZIP],
  'application/vnd.oasis.opendocument.text': [ZIP],
  'application/vnd.ms-excel': [OLE],
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': [ZIP],
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': [ZIP],
  'application/zip': [ZIP],
  'application/rtf': [[0x7b, 0x5c, 0x72, 0x74, 0x66]],
  'text/rtf': [[0x7b, 0x5c, 0x72, 0x74, 0x66]],
  'image/png': [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]],
  'image/jpeg': [[0xff, 0xd8, 0xff]],
  'image/gif': [
    [0x47, 0x49, 0x46, 0x38, 0x37, 0x61],
    [0x47, 0x49, 0x46, 0x38, 0x39, 0x61],
  ],
  'image/webp': [[0x52, 0x49, 0x46, 0x46]],
  'image/tiff': [
    [0x49, 0x49, 0x2a, 0x00],
    [0x4d, 0x4d, 0x00, 0x2a],
  ],
  'text/plain': null,
  'text/csv': null,
};

export const MAX_ATTACHMENTS = 20;

/**
 * An attachment whose bytes went to S3 while the body was read (the lean body path, issue 15): a multipart
 * file part, or a JSON attachment's Base64 `data` decoded in pieces. What validation needs of the bytes is
 * kept (the first bytes, the size, the length as submitted); the object waits under a pending-upload marker
 * until the create commits it or drops it.
 */
export interface StagedFile {
  staged: true;
  /** The object's key; '' when nothing was uploaded (Base64 that is not well formed). */
  key: string;
  /** Bytes stored. */
  size: number;
  /** Length as submitted: Base64 characters (bytes when not well formed), or bytes of a file part. */
  submittedLength: number;
  /** False when the submitted Base64 was not well formed (nothing is uploaded then). */
  wellFormed: boolean;
  head: Buffer;
  /** SHA-256 of the bytes, Base64. */
  checksum: string;
}

/** Where the body parser sends attachment bytes as it reads them. */
export interface AttachmentStager {
  /** Uploads the bytes of one attachment under a pending-upload marker, as they come (the type as submitted, if known). */
  stage(bytes: AsyncIterable<Buffer>, contentType?: string): Promise<StagedFile>;
}

/** A file part of a multipart body, as the HTTP edge hands it to the domain. */
export interface FilePart {
  /** The form field name (an attachment type such as `cv`, or anything else). */
  field: string;
  filename: string;
  contentType: string;
  data: Buffer | StagedFile;
}

/** An attachment as submitted: Base64 text (JSON and form bodies), raw bytes, or bytes already staged. */
export interface IncomingAttachment {
  type: AttachmentType;
  name: string;
  content_type: string;
  data: string | Buffer | StagedFile;
}

export function isStaged(data: unknown): data is StagedFile {
  return typeof data === 'object' && data !== null && (data as StagedFile).staged === true;
}

export interface StoredAttachment {
  type: AttachmentType;
  name: string;
  content_type: string;
  size: number;
  /** SHA-256 of the bytes, Base64 (as S3 checks it). */
  checksum: string;
  key: string;
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** `type/subtype` of a well-formed media type; '' for anything else (which no permitted type matches). */
export function mediaType(contentType: string): string {
  return parseMediaType(contentType)?.essence ?? '';
}

/** Base64 well formed (padding optional, no other characters), without decoding it. */
export function isBase64(text: string): boolean {
  return text.length > 0 && text.length % 4 !== 1 && BASE64.test(text) && !/=[^=]/.test(text);
}

function head(data: string | Buffer | StagedFile): Buffer {
  if (isStaged(data)) return data.head;
  return typeof data === 'string' ? Buffer.from(data.slice(0, 24), 'base64') : data.subarray(0, 16);
}

/** The length as submitted (Base64 characters or bytes). */
function submittedLength(data: string | Buffer | StagedFile): number {
  return isStaged(data) ? data.submittedLength : data.length;
}

export function matchesSignature(contentType: string, firstBytes: Buffer): boolean {
  const essence = mediaType(contentType);
  if (!Object.hasOwn(CONTENT_TYPES, essence)) return false;
  const signatures = CONTENT_TYPES[essence];
  if (signatures === null) return true;
  if (mediaType(contentType) === 'image/webp' && firstBytes.subarray(8, 12).toString('latin1') !== 'WEBP') return false;
  return signatures.some((signature) => signature.every((byte, i) => firstBytes[i] === byte));
}

/** Field errors for attachments `attachments[i]...`; empty when all are acceptable. */
/** The longest attachment name (`attachmentInSchema`'s `name`). */
export const MAX_ATTACHMENT_NAME = 255;

export function checkAttachments(attachments: IncomingAttachment[]): FieldErrors {
  const errors = fieldErrors();
  if (attachments.length > MAX_ATTACHMENTS) errors.attachments = [`At most ${MAX_ATTACHMENTS} attachments.`];
  attachments.forEach((attachment, i) => {
    const path = `attachments[${i}]`;
    // A multipart file's name comes from its part header (busboy allows 16 KB); a JSON one the schema bounds alike.
    if (attachment.name.length > MAX_ATTACHMENT_NAME) {
      errors[`${path}.name`] = [`Must be at most ${MAX_ATTACHMENT_NAME} characters.`];
      return;
    }
    if (!Object.hasOwn(CONTENT_TYPES, mediaType(attachment.content_type))) {
      errors[`${path}.content_type`] = [
        `"${attachment.content_type}" is not a permitted content type; use one of ${Object.keys(CONTENT_TYPES).join(', ')}.`,
      ];
      return;
    }
    if ((typeof attachment.data === 'string' && !isBase64(attachment.data)) || (isStaged(attachment.data) && !attachment.data.wellFormed)) {
      errors[`${path}.data`] = ['Must be valid Base64.'];
      return;
    }
    if (submittedLength(attachment.data) === 0) {
      errors[`${path}.data`] = ['The file is empty.'];
      return;
    }
    if (!matchesSignature(attachment.content_type, head(attachment.data))) {
      errors[`${path}.data`] = [`The file's content does not match its content type ${attachment.content_type}.`];
    }
  });
  return errors;
}

export function attachmentKey(companyId: number, applicationId: number): string {
  return `companies/${companyId}/applications/${applicationId}/${randomUUID()}`;
}

export async function deleteAttachmentObjects(keys: string[]): Promise<void> {
  for (let i = 0; i < keys.length; i += 1000) {
    const chunk = keys.slice(i, i + 1000);
    if (!chunk.length) continue;
    await s3().send(
      new DeleteObjectsCommand({ Bucket: config().bucketName, Delete: { Objects: chunk.map((Key) => ({ Key })), Quiet: true } }),
    );
  }
}

/** Streams an attachment's bytes (connectors send them on without holding the whole file). */
export async function openAttachment(key: string): Promise<Readable> {
  const out = await s3().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  return out.Body as Readable;
}

/** The longest life of a presigned attachment URL (issue 41: at most one hour). */
export const ATTACHMENT_URL_MAX_SECONDS = 3600;

/**
 * A presigned S3 GET URL of one stored attachment, for an ATS that fetches files by URL (Teamtailor, P277):
 * it names that one object, expires within `seconds` (at most an hour) and carries its own signature, so it is
 * a credential of a sort: never log it, store it or put it in an error.
 */
export async function attachmentUrl(key: string, seconds = ATTACHMENT_URL_MAX_SECONDS): Promise<string> {
  const expiresIn = Math.max(1, Math.min(Math.floor(seconds), ATTACHMENT_URL_MAX_SECONDS));
  // Loaded here, on the first URL (P288): the functions that import this module and never presign (the create,
  // the reconciler, the e-mail fallback) do not load the presigner at start; the bundles make it a chunk.
  const { getSignedUrl } = await import('@aws-sdk/s3-request-presigner');
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: config().bucketName, Key: key }), { expiresIn });
}

/** An attachment's bytes in memory (the e-mail fallback attaches them to one message). */
export async function readAttachment(key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of await openAttachment(key)) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** How long a create may take before its uploads count as orphaned (the reconciler then deletes them). */
export function pendingUploadGraceSeconds(): number {
  return Number(process.env.PENDING_UPLOAD_GRACE_SECONDS ?? 3600);
}

/** The marker of an object about to be uploaded for a create; the create's transaction deletes it. */
export function pendingUploadItem(objectKey: string, now = Date.now()): Record<string, unknown> {
  return {
    ...keys.pendingUpload(objectKey),
    ...pendingUploadDue(Math.floor(now / 1000) + pendingUploadGraceSeconds(), objectKey),
    object_key: objectKey,
  };
}

/** The transaction item that clears an upload's marker once its application is committed. */
export function clearPendingUpload(objectKey: string) {
  return { Delete: { TableName: config().tableName, Key: keys.pendingUpload(objectKey) } };
}
