/**
 * What the bundles get instead of nodemailer's `lib/mime-funcs/mime-types.js` (a substitution in
 * lib/bundle-substitutions.ts, P231): its table of about 1,000 content types and file extensions is 76 kB of
 * the SyncWorker's bundle. MailComposer consults it only for a part without a content type (never: the text
 * part's is set by the library, every attachment's by `mimeMessage()`) and for an attachment without a file
 * name (`attachment-1.<extension>`). For that case this answers as nodemailer does for every content type an
 * attachment may have (`CONTENT_TYPES`, shared/applications/attachments.ts), and for the fallback
 * `application/octet-stream`; other types get nodemailer's defaults (`txt` for `text/*`, else `bin`).
 * test/unit/mime-types-stub.test.ts compares it with nodemailer's table. Code run from source (tests, the
 * local runtime, the admin tool) keeps the library's own module.
 */
import { parse } from 'node:path';

/** nodemailer's answers for the permitted attachment types; `*` for octet-stream is its own, kept as it is. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.oasis.opendocument.text': 'odt',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation': 'pptx',
  'application/zip': 'zip',
  'application/rtf': 'rtf',
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/tiff': 'tif',
  'text/plain': 'txt',
  'text/csv': 'csv',
  'application/octet-stream': '*',
};

/** The reverse, as nodemailer answers for these extensions. */
const TYPES: Readonly<Record<string, string>> = {
  ...Object.fromEntries(Object.entries(EXTENSIONS).map(([type, extension]) => [extension, type])),
  jpg: 'image/jpeg',
  tiff: 'image/tiff',
  '*': 'application/octet-stream',
};

/** nodemailer's `detectMimeType`: the content type for a file name or a bare extension. */
export function detectMimeType(filename?: string): string {
  if (!filename) return 'application/octet-stream';
  const parsed = parse(filename);
  const extension = (parsed.ext.slice(1) || parsed.name || '').split('?')[0].trim().toLowerCase();
  return Object.hasOwn(TYPES, extension) ? TYPES[extension] : 'application/octet-stream';
}

/** nodemailer's `detectExtension`: the file extension for a content type. */
export function detectExtension(mimeType?: string): string {
  if (!mimeType) return 'bin';
  const parts = mimeType.toLowerCase().trim().split('/');
  const rootType = parts.shift()!.trim();
  const type = `${rootType}/${parts.join('/').trim()}`;
  if (Object.hasOwn(EXTENSIONS, type)) return EXTENSIONS[type];
  return rootType === 'text' ? 'txt' : 'bin';
}
