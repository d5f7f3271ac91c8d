/**
 * The runtime side of validation, without ajv: validators are generated at build time from the schemas
 * (`npm run validators`, see `shared/platform/validation.ts`), and this module turns their errors into D2
 * field errors with paths such as `candidate.email` or `attachments[0].data`.
 */
import type { ErrorObject } from 'ajv';
import { ValidationError, fieldErrors, type FieldErrors } from '#platform/errors.js';
import { LIMITS } from '#platform/schema-rules.js';

/** A generated (ajv standalone) validator: true when valid, else its `errors` say why. */
export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

function fieldPath(error: ErrorObject): string {
  const parts = error.instancePath
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (error.keyword === 'required') parts.push(String(error.params.missingProperty));
  if (error.keyword === 'additionalProperties') parts.push(String(error.params.additionalProperty));
  if (error.keyword === 'propertyNames') parts.push(String(error.params.propertyName));
  // `x-free-form` names where below its value the problem is.
  if (error.keyword === 'x-free-form' && Array.isArray(error.params.path)) parts.push(...(error.params.path as unknown[]).map(String));
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
    case 'x-well-formed':
      return error.params.name
        ? 'A name here is not well-formed Unicode text (it holds a lone UTF-16 surrogate).'
        : 'Must be well-formed Unicode text (it holds a lone UTF-16 surrogate).';
    case 'x-free-form':
      return `${String(error.params.reason).replace(/^./, (c) => c.toUpperCase())}.`;
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

/** A lone UTF-16 surrogate: a JSON body can carry one (`"\ud800"`), and DynamoDB cannot store it (UTF-8). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** The first string below `data` (a value or a property name) that is not well-formed Unicode, as an error at its path. */
function malformedText(data: unknown, path = ''): ErrorObject | undefined {
  const at = (name: boolean): ErrorObject => ({ instancePath: path, keyword: 'x-well-formed', params: { name }, schemaPath: '#' });
  if (typeof data === 'string') return LONE_SURROGATE.test(data) ? at(false) : undefined;
  if (typeof data !== 'object' || data === null) return undefined;
  for (const [key, value] of Object.entries(data)) {
    if (LONE_SURROGATE.test(key)) return at(true);
    const found = malformedText(value, `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`);
    if (found) return found;
  }
  return undefined;
}

/**
 * A generated validator, loaded on first use: the generated modules export loaders only, so a function
 * whose route never validates that schema pays nothing for it, neither in its bundle nor at start. Any string
 * that is not well-formed Unicode fails it first, at its path.
 */
export function lazyValidator(load: () => CompiledValidator): CompiledValidator {
  let validate: CompiledValidator | undefined;
  const run = ((data: unknown) => {
    // Text that is not well-formed is refused before the schema (which cannot say so) looks at it.
    const malformed = malformedText(data);
    if (malformed) {
      run.errors = [malformed];
      return false;
    }
    validate ??= load();
    const valid = validate(data);
    run.errors = validate.errors;
    return valid;
  }) as CompiledValidator;
  return run;
}

/** An assertion from a generated validator: returns the value typed, or throws a D2 ValidationError. */
export function validator<T>(load: () => CompiledValidator): (value: unknown) => T {
  const validate = lazyValidator(load);
  return (value: unknown): T => {
    if (!validate(value)) throw new ValidationError(toFieldErrors(validate.errors));
    return value as T;
  };
}
