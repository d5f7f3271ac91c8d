/**
 * Every string `format` the service's schemas may use. The ajv configuration (`validation.ts`) registers
 * them, and the generated validators take the ones they use from here, inlined at generation time: a format
 * implemented as a function must live in this module, or the generated code could not reach it.
 */
import { fullFormats } from 'ajv-formats/dist/formats.js';
import type { Format } from 'ajv';
import { isHttpUrl, isPositiveIntegerText, parseDateOrDateTime, parseMediaType } from '#platform/web-formats.js';

export const formats: Record<string, Format> = {
  ...fullFormats,
  // The one rule for URLs we store and hand out, and media types safe to echo into headers (docs/security.md).
  'http-url': { type: 'string', validate: (value: string) => isHttpUrl(value) },
  'media-type': { type: 'string', validate: (value: string) => parseMediaType(value) !== undefined },
  // Query string values of the list filters (D5, P292): a date or ISO date-time, a positive integer id, as text.
  'date-or-date-time': { type: 'string', validate: (value: string) => parseDateOrDateTime(value) !== undefined },
  'positive-integer': { type: 'string', validate: isPositiveIntegerText },
};
