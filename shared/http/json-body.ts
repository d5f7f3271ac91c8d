/**
 * JSON request bodies. Routes that accept only JSON use `parseJsonBody` and so do not bundle the form and
 * multipart parsers of `request-body.ts`, which builds on this for the create route.
 */
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { BadRequestError, UnsupportedMediaTypeError, invalidField } from '#platform/errors.js';
import { header } from '#platform/headers.js';

export function rawBody(event: APIGatewayProxyEvent): Buffer | string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64') : event.body;
}

/** The Content-Type header as sent, and its media type lower-cased without parameters. */
export function contentTypeOf(event: APIGatewayProxyEvent): { contentType: string; mediaType: string } {
  const contentType = header(event, 'content-type') ?? '';
  return { contentType, mediaType: contentType.split(';')[0].trim().toLowerCase() };
}

/** A body that must be one JSON object. */
export function jsonObject(body: Buffer | string): Record<string, unknown> {
  const text = typeof body === 'string' ? body : body.toString('utf8');
  let fields: unknown;
  try {
    fields = JSON.parse(text);
  } catch {
    throw new BadRequestError('The request body is not valid JSON.', 'malformed_json');
  }
  if (typeof fields !== 'object' || fields === null || Array.isArray(fields)) throw invalidField('body', 'Must be a JSON object.');
  return fields as Record<string, unknown>;
}

/** The body of a JSON-only route; any other content type is a 415. */
export function parseJsonBody(event: APIGatewayProxyEvent): Record<string, unknown> {
  const { mediaType } = contentTypeOf(event);
  if (mediaType !== 'application/json') throw new UnsupportedMediaTypeError(mediaType || undefined, ['application/json']);
  return jsonObject(rawBody(event));
}
