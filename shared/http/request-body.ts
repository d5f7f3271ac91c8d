/**
 * Request bodies in the three encodings POST /applications/ accepts (D8): JSON; form-urlencoded with nested
 * fields as `candidate[email]` brackets or as JSON strings; multipart/form-data, whose fields read like the
 * urlencoded form and whose file parts become attachments. Given a stager, file parts (and, on the lean
 * body path, a JSON body's Base64 attachments) go to it as they are read instead of being held (issue 15).
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { UnsupportedMediaTypeError } from '#platform/errors.js';
import { contentTypeOf, jsonObject, rawBody } from '#http/json-body.js';
import { scanJson } from '#http/json-attachments.js';
import { streamedBody } from '#http/streamed-body.js';
import type { AttachmentStager, FilePart, StagedFile } from '#applications/attachments.js';
import type * as FormBody from '#http/form-body.js';

/** The form parsers, loaded on the first form or multipart body (a JSON create never evaluates qs or busboy). */
let loading: Promise<typeof FormBody> | undefined;
const forms = () => (loading ??= import('#http/form-body.js'));

export const BODY_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: FilePart[];
  /** Attachments staged while a JSON body was read, by the placeholder string that stands for their `data`. */
  staged?: Map<string, StagedFile>;
}

/** The whole body of a streamed form (forms are small: their files come as multipart or JSON). */
async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

type BodyContentType = (typeof BODY_CONTENT_TYPES)[number];

/**
 * Parses the body by its content type; a type outside `accepted` is a 415. With a stager, attachment bytes
 * go to it as they are read (the caller removes what it staged if the request then fails).
 */
export async function parseBody(
  event: APIGatewayProxyEvent,
  accepted: readonly BodyContentType[] = BODY_CONTENT_TYPES,
  stager?: AttachmentStager,
): Promise<ParsedBody> {
  const { contentType, mediaType } = contentTypeOf(event);
  if (!(accepted as readonly string[]).includes(mediaType)) throw new UnsupportedMediaTypeError(mediaType || undefined, [...accepted]);
  const streamed = streamedBody(event);
  if (streamed) {
    if (mediaType === 'multipart/form-data')
      return (await forms()).parseMultipart(streamed.chunks(), contentType, Number.MAX_SAFE_INTEGER, stager);
    if (mediaType === 'application/json' && stager) return { ...(await scanJson(streamed.chunks(), stager)), files: [] };
  }
  const body = streamed ? await readAll(streamed.chunks()) : rawBody(event);
  if (mediaType === 'application/json') return { fields: jsonObject(body), files: [] };
  if (mediaType === 'application/x-www-form-urlencoded') {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    return { fields: (await forms()).parseForm(text), files: [] };
  }
  if (mediaType === 'multipart/form-data') {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return (await forms()).parseMultipart([bytes], contentType, bytes.length + 1, stager);
  }
  throw new UnsupportedMediaTypeError(mediaType || undefined, [...accepted]);
}
