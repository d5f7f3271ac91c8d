/**
 * Ashby's presigned file uploads for `applicationForm.submit` (P279), as Ashby recommends since its
 * 2026-08-18 changelog (https://developers.ashbyhq.com/changelog/2026-08-18-recommend-presigned-uploads-for-application-form-submit:
 * "submissions with file fields should use a handle from file.createFileUploadHandle in a JSON body"; inlining
 * the bytes in multipart "remains supported but is slower and less reliable"). The flow, from
 * https://developers.ashbyhq.com/docs/filecreatefileuploadhandle:
 * 1. `file.createFileUploadHandle` with the file's metadata and `fileUploadContext: "ApplicationForm"`
 *    (candidatesWrite) → a presigned upload `url`, form `fields` and a `handle`;
 * 2. a `multipart/form-data` POST of the file to that `url`, with "all returned fields as form fields, and the
 *    file as the last field named file" (no Ashby credentials: the URL carries its own signature, and it
 *    "expires after 10 minutes", so the upload follows at once);
 * 3. the `handle` string as the file field's value in a JSON `applicationForm.submit`.
 * The names of the three metadata parameters besides `fileUploadContext` are not legible in the stored copy of
 * the page (it shows their descriptions: the file name with its extension, the MIME type, the size in bytes):
 * `fileName`, `contentType` and `contentLength` are assumed (docs/connectors/ashby.md). The presigned URL is
 * never logged nor put into an error message (it is a credential for that one object).
 */
import { ConnectorError, type SubmissionAttachment } from '#delivery/connectors/connector.js';
import { atsFetch } from '#delivery/connectors/http.js';
import { httpUrl } from '#delivery/connectors/mapping.js';

const ATS = 'Ashby';

/** The body of `file.createFileUploadHandle` for a file of an application form. */
export function uploadHandleRequest(attachment: SubmissionAttachment, size: number): Record<string, unknown> {
  return {
    fileUploadContext: 'ApplicationForm',
    fileName: attachment.name,
    contentType: attachment.content_type || 'application/octet-stream',
    contentLength: size,
  };
}

export interface UploadHandle {
  handle: string;
  url: string;
  fields: [string, string][];
}

/** The `results` of `file.createFileUploadHandle`: `handle`, `url` (http(s) only) and `fields` (strings). */
export function readUploadHandle(results: unknown): UploadHandle {
  const r = (results && typeof results === 'object' ? results : {}) as { handle?: unknown; url?: unknown; fields?: unknown };
  const url = httpUrl(r.url);
  if (typeof r.handle !== 'string' || !r.handle || !url)
    throw new ConnectorError('transient', `${ATS} file.createFileUploadHandle answered without a handle or an upload URL.`);
  const fields = r.fields === undefined || r.fields === null ? {} : r.fields;
  if (typeof fields !== 'object' || Array.isArray(fields) || Object.values(fields).some((v) => typeof v !== 'string'))
    throw new ConnectorError('transient', `${ATS} file.createFileUploadHandle answered with malformed upload fields.`);
  return { handle: r.handle, url, fields: Object.entries(fields as Record<string, string>) };
}

/**
 * Step 2: the file to the presigned URL. A refusal by the storage (4xx: the file does not match what the handle
 * was made for) is `attachment_rejected`; 5xx and network errors are `transient`. Messages name the status only.
 */
export async function uploadToStorage(upload: UploadHandle, attachment: SubmissionAttachment, bytes: Buffer): Promise<void> {
  const form = new FormData();
  for (const [name, value] of upload.fields) form.append(name, value);
  // "The file as the last field named file".
  form.append('file', new Blob([bytes], { type: attachment.content_type || 'application/octet-stream' }), attachment.name);
  const response = await atsFetch(ATS, upload.url, { method: 'POST', body: form });
  await response.arrayBuffer().catch(() => undefined);
  if (response.ok) return;
  if (response.status >= 500 || response.status === 429)
    throw new ConnectorError('transient', `${ATS}'s file storage answered ${response.status} to the ${attachment.type} upload.`);
  throw new ConnectorError('attachment_rejected', `${ATS}'s file storage refused the ${attachment.type} file (${response.status}).`);
}
