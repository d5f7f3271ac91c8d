/**
 * The service's one ajv configuration: options, formats and keywords. It is used at build time only, to
 * generate the validators (ajv standalone code, `npm run validators`), and by tests; no function compiles
 * a schema at runtime, and no function bundle contains ajv. Whatever is added here (a format, a keyword)
 * flows into the generated validators the next time they are generated; a test fails while they are stale.
 * The runtime side (D2 field errors from a validator's errors) is `field-errors.ts`.
 */
import { Ajv, _, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { formats } from '#platform/formats.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const AJV_OPTIONS = { allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false } as const satisfies Options;

/** How generated code reaches a format implemented as a function (a RegExp format is inlined by ajv itself). */
const FORMATS_CODE = _`require("#platform/formats.js").formats`;

/** A new ajv instance with the service's options, formats and keywords; `options` adds to them (code generation). */
export function createAjv(options: Options = {}): Ajv {
  const ajv = new Ajv({ ...AJV_OPTIONS, ...options, code: { ...options.code, formats: FORMATS_CODE } });
  addFormats(ajv);
  for (const [name, format] of Object.entries(formats)) if (!(name in ajv.formats)) ajv.addFormat(name, format);
  return ajv;
}

/** An instance for tests that compile schemas at test time. */
export const ajv = createAjv();
