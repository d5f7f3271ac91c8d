/**
 * The shared input rules as schema fragments (no ajv here: domain schemas import them at runtime, for their
 * types and the OpenAPI document, and no function bundle may contain ajv). Numbers DynamoDB can store
 * (`storableNumber`), key names that are safe as object keys (`safeKeyNames`) and bounded free-form objects
 * and arrays (depth, keys per object, items, string length, serialised size through the `x-max-json-bytes`
 * keyword of validation.ts). The formats `http-url` and `media-type` are in formats.ts.
 */

/** Input limits (docs/security.md lists them). */
export const LIMITS = {
  /** Nesting levels of a free-form object, the object itself being level 1 (DynamoDB allows 32). */
  freeFormDepth: 5,
  /** Nesting levels of an ATS's untouched record (`raw_values`): Greenhouse's questions nest 8 deep. */
  rawValuesDepth: 10,
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

/** The limits of a free-form value, as the `x-free-form` keyword takes them (storable.ts). */
const FREE_FORM_LIMITS = {
  depth: LIMITS.freeFormDepth,
  keys: LIMITS.freeFormKeys,
  items: LIMITS.freeFormItems,
  string: LIMITS.freeFormString,
  keyName: LIMITS.keyName,
};

const FREE_FORM_OBJECT = {
  type: 'object',
  description: `Free-form: at most ${LIMITS.freeFormDepth} levels deep, ${LIMITS.freeFormKeys} keys an object, ${LIMITS.freeFormItems} items an array, ${LIMITS.freeFormBytes} bytes as JSON; key names not __proto__, constructor or prototype; numbers DynamoDB can store.`,
  'x-max-json-bytes': LIMITS.freeFormBytes,
  'x-free-form': FREE_FORM_LIMITS,
};

const FREE_FORM_ARRAY = {
  type: 'array',
  description: FREE_FORM_OBJECT.description,
  'x-max-json-bytes': LIMITS.freeFormBytes,
  'x-free-form': FREE_FORM_LIMITS,
};

/** An ATS's own record: its shape is the ATS's, deeper than partners' free-form fields may be. */
const RAW_VALUES_OBJECT = {
  type: 'object',
  description: `An ATS's untouched record: at most ${LIMITS.rawValuesDepth} levels deep, ${LIMITS.freeFormBytes} bytes as JSON.`,
  'x-max-json-bytes': LIMITS.freeFormBytes,
  'x-free-form': { ...FREE_FORM_LIMITS, depth: LIMITS.rawValuesDepth },
};

/** A free-form object (custom fields, raw values): bounded depth, keys, names, numbers and size. */
export function freeFormObject() {
  return FREE_FORM_OBJECT as { type: 'object' };
}

/** A job's `raw_values`: the free-form rules with the depth an ATS's own records need. */
export function rawValuesObject() {
  return RAW_VALUES_OBJECT as { type: 'object' };
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
];
