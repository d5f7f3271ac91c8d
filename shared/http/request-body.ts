/**
 * Request bodies in the three encodings POST /applications/ accepts (D8): JSON; form-urlencoded with nested
 * fields as `candidate[email]` brackets or as JSON strings; multipart/form-data, whose fields read like the
 * urlencoded form and whose file parts become attachments.
 */
import busboy from 'busboy';
import qs from 'qs';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequestError, UnsupportedMediaTypeError, invalidField } from '#platform/errors.js';
import { contentTypeOf, jsonObject, rawBody } from '#http/json-body.js';
import type { FilePart } from '#applications/attachments.js';

export const BODY_CONTENT_TYPES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'] as const;

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: FilePart[];
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

function parseMultipart(body: Buffer, contentType: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    const pairs: string[] = [];
    const files: FilePart[] = [];
    let parser: busboy.Busboy;
    try {
      // A field may be as long as the body itself (Base64 attachments in bracket form); nothing is cut short.
      parser = busboy({ headers: { 'content-type': contentType }, limits: { fields: 2000, files: 20, fieldSize: body.length + 1 } });
    } catch {
      reject(new BadRequestError('The multipart body has no valid boundary.', 'malformed_body'));
      return;
    }
    parser.on('field', (name, value, info) => {
      if (info.nameTruncated || info.valueTruncated) reject(invalidField(name, 'The field is too long.'));
      pairs.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`);
    });
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () =>
        files.push({ field, filename: info.filename ?? field, contentType: info.mimeType, data: Buffer.concat(chunks) }),
      );
    });
    parser.on('filesLimit', () => reject(invalidField('attachments', 'At most 20 files.')));
    parser.on('fieldsLimit', () => reject(invalidField('body', 'The form has too many fields.')));
    parser.on('error', () => reject(new BadRequestError('The multipart body is malformed.', 'malformed_body')));
    parser.on('close', () => {
      try {
        resolve({ fields: parseForm(pairs.join('&')), files });
      } catch (error) {
        reject(error);
      }
    });
    parser.end(body);
  });
}

type BodyContentType = (typeof BODY_CONTENT_TYPES)[number];

/** Parses the body by its content type; a type outside `accepted` is a 415. */
export async function parseBody(
  event: APIGatewayProxyEvent,
  accepted: readonly BodyContentType[] = BODY_CONTENT_TYPES,
): Promise<ParsedBody> {
  const { contentType, mediaType } = contentTypeOf(event);
  if (!(accepted as readonly string[]).includes(mediaType)) throw new UnsupportedMediaTypeError(mediaType || undefined, [...accepted]);
  const body = rawBody(event);
  if (mediaType === 'application/json') return { fields: jsonObject(body), files: [] };
  if (mediaType === 'application/x-www-form-urlencoded') {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    return { fields: parseForm(text), files: [] };
  }
  if (mediaType === 'multipart/form-data') {
    return parseMultipart(typeof body === 'string' ? Buffer.from(body, 'utf8') : body, contentType);
  }
  throw new UnsupportedMediaTypeError(mediaType || undefined, [...accepted]);
}
