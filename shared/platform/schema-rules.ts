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
