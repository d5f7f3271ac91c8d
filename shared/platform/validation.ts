/**
 * One ajv instance for the service. Schemas are compiled once at module scope by the modules that own
 * them; `validator()` turns ajv's errors into D2 field errors with paths such as `candidate.email` or
 * `attachments[0].data`.
 */
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ValidationError, type FieldErrors } from '#platform/errors.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export const ajv = addFormats(new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, coerceTypes: false }));

function fieldPath(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
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
    case 'enum':
      return `Must be one of ${(error.params.allowedValues as unknown[]).filter((v) => v !== null).join(', ')}.`;
    case 'format':
      return `Must be a valid ${error.params.format === 'uri' ? 'URL' : error.params.format === 'email' ? 'e-mail address' : error.params.format}.`;
    case 'type':
      return `Must be of type ${String(error.params.type).replace(',', ' or ')}.`;
    default:
      return `${error.message ?? 'Invalid value'}.`.replace(/^must/, 'Must');
  }
}

export function toFieldErrors(errors: ErrorObject[] | null | undefined): FieldErrors {
  const out: FieldErrors = {};
  for (const error of errors ?? []) {
    // anyOf/oneOf branches repeat their children's errors; keep the concrete ones.
    if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
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
