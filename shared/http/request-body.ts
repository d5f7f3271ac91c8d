/**
 * Request bodies in the three encodings POST /applications/ accepts (D8): JSON; form-urlencoded with nested
 * fields as `candidate[email]` brackets or as JSON strings; multipart/form-data, whose fields read like the
 * urlencoded form and whose file parts become attachments. Given a stager, file parts (and, on the lean
 * body path, a JSON body's Base64 attachments) go to it as they are read instead of being held (issue 15).
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import qs from 'qs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequestError, UnsupportedMediaTypeError, invalidField } from '#platform/errors.js';
import { contentTypeOf, jsonObject, rawBody } from '#http/json-body.js';
import { scanJson } from '#http/json-attachments.js';
import { streamedBody } from '#http/streamed-body.js';
import type { AttachmentStager, FilePart, StagedFile } from '#applications/attachments.js';

export const BODY_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: FilePart[];
  /** Attachments staged while a JSON body was read, by the placeholder string that stands for their `data`. */
  staged?: Map<string, StagedFile>;
}

/** Form fields whose values are objects or arrays: a form may send them as JSON strings. */
const STRUCTURED_FIELDS = new Set(['candidate', 'social_links', 'screening_questions', 'custom_fields', 'attachments']);
const INTEGER_FIELDS = new Set(['job', 'talent_channel']);

/** Form values are strings: JSON-string fields are parsed, integer ids converted, nothing else guessed. */
function normaliseForm(fields: Record<string, unknown>): Record<string, unknown> {
  for (const [name, value] of Object.entries(fields)) {
    if (STRUCTURED_FIELDS.has(name) && typeof value === 'string') {
      try {
        fields[name] = JSON.parse(value);
      } catch {
        throw invalidField(name, 'Must be an object (as bracketed fields or a JSON string).');
      }
    } else if (INTEGER_FIELDS.has(name) && typeof value === 'string' && /^\d{1,15}$/.test(value)) {
      fields[name] = Number(value);
    } else if (INTEGER_FIELDS.has(name) && value === '') {
      delete fields[name];
    }
  }
  return fields;
}

const QS_OPTIONS = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 2000,
  allowPrototypes: false,
  throwOnLimitExceeded: true,
  strictDepth: true,
} as const;

/** A form with more fields than the limits is refused rather than cut short. */
function parseForm(text: string): Record<string, unknown> {
  try {
    return normaliseForm(qs.parse(text, QS_OPTIONS) as Record<string, unknown>);
  } catch (error) {
    if (error instanceof RangeError) throw invalidField('body', 'The form has too many fields or too deeply nested ones.');
    throw error;
  }
}

/**
 * Feeds the body to busboy chunk by chunk, waiting whenever busboy waits (a file part's reader is behind).
 * File parts go to the stager when there is one, else are collected. Resolves once the body is read and
 * every staged upload has settled, so a refused body leaves nothing in flight.
 */
async function parseMultipart(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  contentType: string,
  maxFieldBytes: number,
  stager?: AttachmentStager,
): Promise<ParsedBody> {
  const pairs: string[] = [];
  const files: FilePart[] = [];
  const staging: Promise<unknown>[] = [];
  const open = new Set<Readable>();
  let failure: unknown;
  const fail = (error: unknown) => (failure ??= error);
  let parser: busboy.Busboy;
  try {
    // A field may be as long as the body itself (Base64 attachments in bracket form); nothing is cut short.
    parser = busboy({ headers: { 'content-type': contentType }, limits: { fields: 2000, files: 20, fieldSize: maxFieldBytes } });
  } catch {
    throw new BadRequestError('The multipart body has no valid boundary.', 'malformed_body');
  }
  const closed = new Promise<void>((resolve) => {
    parser.on('close', resolve);
    parser.on('error', () => {
      fail(new BadRequestError('The multipart body is malformed.', 'malformed_body'));
      resolve();
    });
  });
  parser.on('field', (name, value, info) => {
    if (info.nameTruncated || info.valueTruncated) fail(invalidField(name, 'The field is too long.'));
    pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
  });
  parser.on('file', (field, stream, info) => {
    const index = files.length;
    const part: FilePart = { field, filename: info.filename ?? field, contentType: info.mimeType, data: Buffer.alloc(0) };
    files.push(part);
    open.add(stream);
    stream.once('close', () => open.delete(stream));
    if (stager) {
      const staged = stager.stage(stream, info.mimeType).then((file) => (files[index] = { ...part, data: file }));
      // A failed upload still lets busboy read on (the request fails once the body is read).
      staged.catch((error: unknown) => {
        fail(error);
        stream.resume();
      });
      staging.push(staged);
      return;
    }
    const parts: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => parts.push(chunk));
    stream.on('end', () => (part.data = Buffer.concat(parts)));
  });
  parser.on('filesLimit', () => fail(invalidField('attachments', 'At most 20 files.')));
  parser.on('fieldsLimit', () => fail(invalidField('body', 'The form has too many fields.')));
  try {
    for await (const chunk of chunks) {
      if (failure) break;
      await new Promise<void>((resolve) => parser.write(chunk, () => resolve()));
    }
    if (!failure) parser.end();
  } catch (error) {
    fail(error);
  }
  // A body refused part way: busboy and the uploads of its open file parts are stopped.
  if (failure) {
    for (const stream of open) stream.destroy(failure instanceof Error ? failure : new Error('refused'));
    parser.destroy();
  } else await closed;
  await Promise.allSettled(staging);
  if (failure) throw failure;
  return { fields: parseForm(pairs.join('&')), files };
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
    if (mediaType === 'multipart/form-data') return parseMultipart(streamed.chunks(), contentType, Number.MAX_SAFE_INTEGER, stager);
    if (mediaType === 'application/json' && stager) return { ...(await scanJson(streamed.chunks(), stager)), files: [] };
  }
  const body = streamed ? await readAll(streamed.chunks()) : rawBody(event);
  if (mediaType === 'application/json') return { fields: jsonObject(body), files: [] };
  if (mediaType === 'application/x-www-form-urlencoded') {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    return { fields: parseForm(text), files: [] };
  }
  if (mediaType === 'multipart/form-data') {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    return parseMultipart([bytes], contentType, bytes.length + 1, stager);
  }
  throw new UnsupportedMediaTypeError(mediaType || undefined, [...accepted]);
}
