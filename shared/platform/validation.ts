/**
 * One ajv instance for the service. Schemas are compiled once at module scope by the modules that own
 * them; `validator()` turns ajv's errors into D2 field errors with paths such as `candidate.email` or
 * `attachments[0].data`.
 *
 * The shared input rules live here as schema fragments, formats and one code-generated keyword (all of
 * which survive ajv's standalone compilation): http(s) URLs (`http-url`), media types (`media-type`),
 * numbers DynamoDB can store (`storableNumber`), key names that are safe as object keys (`safeKeyNames`)
 * and bounded free-form objects (`freeFormObject`: depth, keys per object, serialised size).
 */
import { Ajv, _, str, type ErrorObject, type KeywordCxt, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError, fieldErrors, type FieldErrors } from '#platform/errors.js';
import { isHttpUrl, parseMediaType } from '#platform/web-formats.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Our own formats: pure functions, so a standalone build can import them from `web-formats.ts`. */
export const formats = {
  'http-url': (value: string) => isHttpUrl(value),
  'media-type': (value: string) => parseMediaType(value) !== undefined,
} as const;

/**
 * Adds the service's formats and the `x-max-json-bytes` keyword to an ajv instance (the service's, and
 * the Ajv2020 one that checks the OpenAPI document). The keyword is generated code (no closure), so it
 * compiles standalone; a value too deep to serialise counts as too large.
 */
export function addInputRules<T extends Pick<Ajv, 'addFormat' | 'addKeyword'>>(instance: T): T {
  for (const [name, validate] of Object.entries(formats)) instance.addFormat(name, { type: 'string', validate });
  instance.addKeyword({
    keyword: 'x-max-json-bytes',
    schemaType: 'number',
    code(cxt: KeywordCxt) {
      cxt.fail(
        _`(() => { try { return Buffer.byteLength(JSON.stringify(${cxt.data}) ?? ''); } catch { return Infinity; } })() > ${cxt.schema as number}`,
      );
    },
    error: { message: ({ schema }) => str`must be at most ${schema as number} bytes as JSON` },
  });
  return instance;
}

export const ajv = addInputRules(addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false })));

/** Input limits (docs/security.md lists them). */
export const LIMITS = {
  /** Nesting levels of a free-form object, the object itself being level 1 (DynamoDB allows 32). */
  freeFormDepth: 5,
  /** Keys of each object inside a free-form object. */
  freeFormKeys: 100,
  /** A free-form object serialised as JSON. */
  freeFormBytes: 64 * 1024,
  /** Items of each array inside a free-form object. */
  freeFormItems: 100,
  /** Strings inside a free-form object. */
  freeFormString: 10_000,
  /** Names of keys in objects whose keys the client chooses. */
  keyName: 255,
  /** The largest magnitude a stored number may have: lib-dynamodb refuses integers beyond 2^53 - 1. */
  maxNumber: Number.MAX_SAFE_INTEGER,
  /** The smallest non-zero magnitude DynamoDB stores. */
  minNumberMagnitude: 1e-130,
} as const;

/** A number DynamoDB (through lib-dynamodb) can store: finite, |x| ≤ 2^53 - 1, and 0 or |x| ≥ 1e-130. */
export const storableNumber = {
  type: 'number',
  minimum: -LIMITS.maxNumber,
  maximum: LIMITS.maxNumber,
  not: {
    type: 'number',
    exclusiveMinimum: -LIMITS.minNumberMagnitude,
    exclusiveMaximum: LIMITS.minNumberMagnitude,
    not: { const: 0 },
  },
} as const;

/** Names that become keys of stored objects: never the prototype's own (DynamoDB's marshaller drops or chokes on them). */
export const safeKeyNames = {
  type: 'string',
  minLength: 1,
  maxLength: LIMITS.keyName,
  pattern: '^(?!(?:__proto__|constructor|prototype)$)',
} as const;

const freeFormValues = new Map<number, Record<string, unknown>>();

/** A scalar or (below the depth limit) a container of a free-form object; one object per level, reused. */
function freeFormValue(level: number): Record<string, unknown> {
  const known = freeFormValues.get(level);
  if (known) return known;
  const scalar = {
    maxLength: LIMITS.freeFormString,
    minimum: storableNumber.minimum,
    maximum: storableNumber.maximum,
    not: storableNumber.not,
  };
  const schema =
    level > LIMITS.freeFormDepth
      ? { type: ['string', 'number', 'boolean', 'null'], ...scalar }
      : {
          type: ['string', 'number', 'boolean', 'null', 'object', 'array'],
          ...scalar,
          maxProperties: LIMITS.freeFormKeys,
          propertyNames: safeKeyNames,
          additionalProperties: freeFormValue(level + 1),
          maxItems: LIMITS.freeFormItems,
          items: freeFormValue(level + 1),
        };
  freeFormValues.set(level, schema);
  return schema;
}

const FREE_FORM_OBJECT = {
  type: 'object',
  description: `Free-form: at most ${LIMITS.freeFormDepth} levels deep, ${LIMITS.freeFormKeys} keys an object, ${LIMITS.freeFormBytes} bytes as JSON.`,
  maxProperties: LIMITS.freeFormKeys,
  'x-max-json-bytes': LIMITS.freeFormBytes,
  propertyNames: safeKeyNames,
  additionalProperties: freeFormValue(2),
};

const FREE_FORM_ARRAY = {
  type: 'array',
  maxItems: LIMITS.freeFormItems,
  'x-max-json-bytes': LIMITS.freeFormBytes,
  items: freeFormValue(2),
};

/** A free-form object (custom fields, raw values): bounded depth, keys, names, numbers and size. */
export function freeFormObject() {
  return FREE_FORM_OBJECT as { type: 'object' };
}

/** A free-form array (options lists of imported forms), with the same bounds on its items. */
export function freeFormArray() {
  return FREE_FORM_ARRAY as { type: 'array' };
}

/** The shared schema objects, for the OpenAPI document to emit once and reference. */
export const SHARED_SCHEMAS: readonly [string, object][] = [
  ['FreeFormObject', FREE_FORM_OBJECT],
  ['FreeFormArray', FREE_FORM_ARRAY],
  ['SafeKeyName', safeKeyNames],
  ...Array.from({ length: LIMITS.freeFormDepth }, (_unused, i) => [`FreeFormValue${i + 2}`, freeFormValue(i + 2)] as [string, object]),
];

function fieldPath(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  if (error.keyword === 'propertyNames') parts.push(String(error.params.propertyName));
  let path = '';
  for (const part of parts) path += /^\d+$/.test(part) ? `[${part}]` : path ? `.${part}` : part;
  return path || 'body';
}

function message(error: ErrorObject): string {
  switch (error.keyword) {
    case 'required':
      return 'This field is required.';
    case 'additionalProperties':
      return 'This field is not accepted here.';
    case 'propertyNames':
      return `This name is not accepted here: names are 1 to ${LIMITS.keyName} characters, and not __proto__, constructor or prototype.`;
    case 'enum':
      return `Must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}.`;
    case 'format':
      return `Must be a valid ${FORMAT_NAMES[String(error.params.format)] ?? String(error.params.format)}.`;
    case 'type':
      return `Must be of type ${String(error.params.type).replace(/,/g, ' or ')}.`;
    case 'not':
      // The only negation in our schemas is the storable-number rule.
      return `Must be 0 or at least ${LIMITS.minNumberMagnitude} in magnitude.`;
    case 'minimum':
    case 'maximum':
      return `Must be ${error.params.comparison} ${String(error.params.limit)}.`;
    default:
      return `${error.message ?? 'Invalid value'}.`.replace(/^must/, 'Must');
  }
}

const FORMAT_NAMES: Record<string, string> = { uri: 'URL', 'http-url': 'http or https URL', email: 'e-mail address' };

export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldErrors {
  const out = fieldErrors();
  for (const error of errors ?? []) {
    // anyOf/oneOf branches repeat their children's errors; keep the concrete ones.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
    // The reasons a property name failed; the propertyNames error itself names the property.
    if ((error as ErrorObject & { propertyName?: string }).propertyName !== undefined) continue;
    const path = fieldPath(error);
    const text = message(error);
    const list = (out[path] ??= []);
    if (!list.includes(text)) list.push(text);
  }
  return out;
}

/** Compiles a schema and returns an assertion that throws a D2 ValidationError. */
export function validator<T>(schema: object): (value: unknown) => T {
  const validate: ValidateFunction = ajv.compile(schema);
  return (value: unknown): T => {
    if (!validate(value)) throw new ValidationError(toFieldErrors(validate.errors));
    return value as T;
  };
}
