/**
 * The form encodings of POST /applications/ (D8), apart from `request-body.ts` so that a JSON request never
 * loads them: `request-body.ts` imports this module on the first form or multipart body (issue 13: the create
 * bundle keeps qs and busboy, but a cold instance evaluates them only when a form arrives). Urlencoded
 * forms take nested fields as `candidate[email]` brackets or as JSON strings; multipart fields read like
 * the urlencoded form and its file parts become attachments, staged as they are read when there is a stager.
 */
import type { Readable } from 'node:stream';
import busboy from 'busboy';
import qs from 'qs';
import { BadRequestError, invalidField } from '#platform/errors.js';
import type { AttachmentStager, FilePart } from '#applications/attachments.js';

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

/**
 * Objects without a prototype, so that a name such as `toString` or `constructor` is a field like any other (qs
 * would drop it otherwise); the JSON round trip below gives them one, as `JSON.parse` does a JSON body's.
 */
const QS_OPTIONS = {
  depth: 5,
  arrayLimit: 100,
  parameterLimit: 2000,
  plainObjects: true,
  allowPrototypes: true,
  throwOnLimitExceeded: true,
  strictDepth: true,
} as const;

/** The form field path of a `__proto__` segment (`custom_fields[__proto__][x]` → `custom_fields.__proto__`), which qs drops. */
function protoPath(text: string): string | undefined {
  for (const pair of text.split('&')) {
    const raw = pair.split('=')[0].replace(/\+/g, ' ');
    let name: string;
    try {
      name = decodeURIComponent(raw);
    } catch {
      name = raw;
    }
    const segments = name.split(/\]?\[|\]$/).filter((segment, i) => i === 0 || segment !== '');
    const at = segments.indexOf('__proto__');
    if (at >= 0) return segments.slice(0, at + 1).join('.');
  }
  return undefined;
}

/**
 * A form with more fields than the limits is refused rather than cut short; its names are read as a JSON body's
 * are (a `__proto__` name is a 400 naming it, as the schema's rule for key names has it for JSON).
 */
export function parseForm(text: string): Record<string, unknown> {
  const proto = protoPath(text);
  if (proto) throw invalidField(proto, 'This name is not accepted here: not __proto__, constructor or prototype.');
  try {
    return normaliseForm(JSON.parse(JSON.stringify(qs.parse(text, QS_OPTIONS))) as Record<string, unknown>);
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
export async function parseMultipart(
  chunks: AsyncIterable<Buffer> | Iterable<Buffer>,
  contentType: string,
  maxFieldBytes: number,
  stager?: AttachmentStager,
): Promise<{ fields: Record<string, unknown>; files: FilePart[] }> {
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
