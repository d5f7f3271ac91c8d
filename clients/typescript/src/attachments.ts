/**
 * Attachments for `applications.create`: the API takes each file as `{type, name, content_type, data}` with
 * `data` in Base64, and checks that the bytes match the content type. These helpers build that object from
 * bytes in memory or from a file, naming the content type from the file name's extension unless given.
 */
import { readFile } from 'node:fs/promises';
import { basename } from 'node:path';
import type { AttachmentIn, AttachmentType } from './types.js';

/** The content types the API accepts, by file extension (see the request body of `POST /applications/`). */
export const CONTENT_TYPES: ReadonlyMap<string, string> = new Map([
  ['pdf', 'application/pdf'],
  ['doc', 'application/msword'],
  ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  ['odt', 'application/vnd.oasis.opendocument.text'],
  ['xls', 'application/vnd.ms-excel'],
  ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ['zip', 'application/zip'],
  ['rtf', 'application/rtf'],
  ['png', 'image/png'],
  ['jpg', 'image/jpeg'],
  ['jpeg', 'image/jpeg'],
  ['gif', 'image/gif'],
  ['webp', 'image/webp'],
  ['tif', 'image/tiff'],
  ['tiff', 'image/tiff'],
  ['txt', 'text/plain'],
  ['csv', 'text/csv'],
]);

export interface AttachmentOptions {
  /** What the file is; default `other`. */
  type?: AttachmentType;
  /** The media type; default: from the name's extension. */
  contentType?: string;
}

/** The content type for a file name, from its extension; undefined for one the API does not take. */
export function contentTypeFor(name: string): string | undefined {
  const dot = name.lastIndexOf('.');
  return dot < 0 ? undefined : CONTENT_TYPES.get(name.slice(dot + 1).toLowerCase());
}

/** An attachment from bytes in memory (a Buffer or any Uint8Array). */
export function attachmentFromBuffer(data: Uint8Array, options: AttachmentOptions & { name: string }): AttachmentIn {
  if (data.byteLength === 0) throw new TypeError(`Attachment ${JSON.stringify(options.name)} is empty.`);
  const contentType = options.contentType ?? contentTypeFor(options.name);
  if (!contentType)
    throw new TypeError(
      `No content type known for ${JSON.stringify(options.name)}: pass contentType (one the API accepts, e.g. application/pdf).`,
    );
  return {
    type: options.type ?? 'other',
    name: options.name,
    content_type: contentType,
    data: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64'),
  };
}

/** An attachment read from a file; its name is the file's base name unless `name` is given. */
export async function attachmentFromFile(path: string, options: AttachmentOptions & { name?: string } = {}): Promise<AttachmentIn> {
  return attachmentFromBuffer(await readFile(path), { ...options, name: options.name ?? basename(path) });
}
