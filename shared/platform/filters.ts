/**
 * List filters, declared once per entity (P243, P292): the query parameter, what it matches (`kind`), how its
 * value is read, a line for the OpenAPI document and how the store serves it (`serve`, per entity). From the
 * declarations come the query's JSON Schema (`filterQuerySchema`, compiled at build time by `npm run validators`
 * like every body schema), the planner's values (`FilterSet.read`), the parameters a cursor is bound to
 * (`FilterSet.names`) and the OpenAPI document's parameters: adding a filter on an existing index is one
 * declaration in a `*-filters.ts` module and one test.
 */
import { invalidField } from '#platform/errors.js';
import type { CompiledValidator } from '#platform/field-errors.js';
import type { Condition } from '#platform/paged-query.js';
import { stringParam, stringParams, type QueryParams } from '#platform/query-params.js';
import { parseDateOrDateTime } from '#platform/web-formats.js';

/** How a parameter's value is read: a string, a positive integer id, a D5 date, a boolean, or one of a list. */
export type FilterValue = 'string' | 'id' | 'date' | 'boolean' | readonly string[];

export interface FilterDeclaration<Serve = unknown> {
  /** The query parameter, also the Application/Job/Company field it filters on. */
  name: string;
  /**
   * `exact`: equal (e-mail case-insensitively); `contains`: a case-insensitive substring; `search`: a
   * case-insensitive substring of any of several fields (free text); `gte`: on or after.
   */
  kind: 'exact' | 'contains' | 'search' | 'gte';
  value: FilterValue;
  /** The parameter may be repeated: its values are read as a list, and match any of them (OR). */
  repeatable?: true;
  /** What is compared, for the OpenAPI document (`exact`/`contains`: "the title"; `search`: the fields); else `` `name` ``. */
  about?: string;
  serve: Serve;
}

export type FilterValues = Map<string, string | number | boolean | (string | number | boolean)[]>;

/**
 * The longest text a filter takes, in UTF-16 code units. An exact filter's value becomes part of a DynamoDB
 * partition key (at most 2,048 bytes; 500 code units are at most 1,500 bytes), and no value such a filter matches
 * is stored longer than 255 characters; a contains filter is held to the same.
 */
export const MAX_FILTER_CHARS = 500;

type Json = Record<string, unknown>;

/**
 * Each kind of value (P292): its schema as query text (`query`), as the OpenAPI document types it (`document`),
 * the D5 message when the text fails the schema, and the value the planner gets from valid text.
 */
interface ValueRule {
  query: Json;
  document: Json;
  message: (text: string) => string;
  read: (text: string) => string | number | boolean;
}

const RULES: Record<Exclude<FilterValue, readonly string[]>, ValueRule> = {
  string: {
    query: { type: 'string', 'x-max-utf16-length': MAX_FILTER_CHARS },
    document: { type: 'string', maxLength: MAX_FILTER_CHARS },
    message: () => `Must be at most ${MAX_FILTER_CHARS} characters.`,
    read: (text) => text,
  },
  id: {
    query: { type: 'string', format: 'positive-integer' },
    document: { type: 'integer', minimum: 1 },
    message: () => 'Must be a positive integer.',
    read: Number,
  },
  date: {
    query: { type: 'string', format: 'date-or-date-time' },
    document: {
      anyOf: [
        { type: 'string', format: 'date' },
        { type: 'string', format: 'date-time' },
      ],
    },
    message: () => 'Must be a date (YYYY-MM-DD) or an ISO 8601 date-time.',
    read: (text) => parseDateOrDateTime(text)!,
  },
  boolean: {
    // `true`, `false`, `1`, `0`, any case (D5).
    query: { type: 'string', pattern: '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$' },
    document: { type: 'boolean' },
    message: () => 'Must be one of true, false, 1, 0.',
    read: (text) => text === '1' || text.toLowerCase() === 'true',
  },
};

/** The rule of a declared value: one of the kinds above, or an enumeration. */
export function valueRule(value: FilterValue): ValueRule {
  if (typeof value === 'string') return RULES[value as keyof typeof RULES];
  const allowed = [...(value as readonly string[])];
  return {
    query: { type: 'string', enum: allowed },
    document: { type: 'string', enum: allowed },
    message: (text) => `"${text}" is not one of ${allowed.join(', ')}.`,
    read: (text) => text,
  };
}

/**
 * The JSON Schema of a list's filter query (P292), as `FilterSet.read` hands it over: each declared parameter
 * present, by its first non-empty value (a repeatable one by all of them, a list).
 */
export function filterQuerySchema(declarations: readonly FilterDeclaration[]): Json {
  const properties: Json = {};
  for (const { name, value, repeatable } of declarations) {
    const one = valueRule(value).query;
    properties[name] = repeatable ? { type: 'array', items: one } : one;
  }
  return { type: 'object', properties };
}

/** A list's filters: the declarations, the parameters a cursor is bound to, and their values read from a query. */
export interface FilterSet<D extends FilterDeclaration = FilterDeclaration> {
  declarations: readonly D[];
  /** The query parameters, in declaration order (a cursor is bound to them). */
  names: string[];
  /** The declared filters present in the query, read (a value the schema refuses is a 400 naming it, D5). */
  read: (q: QueryParams) => FilterValues;
  /** The present `gte` filters as conditions on items, but `created_at`: the created order's own key bounds it. */
  dateConditions: (values: FilterValues) => Condition[];
}

/**
 * The filter set of `declarations`, validated by `load()`: the generated validator of their `filterQuerySchema`
 * (shared/generated/<layer>-validators.ts), loaded on first use.
 */
export function filterSet<D extends FilterDeclaration>(declarations: readonly D[], load: () => CompiledValidator): FilterSet<D> {
  let validate: CompiledValidator | undefined;
  const read = (q: QueryParams): FilterValues => {
    const data = Object.create(null) as Record<string, string | string[]>;
    for (const { name, repeatable } of declarations) {
      const given = repeatable ? stringParams(q, name) : stringParam(q, name);
      if (given !== undefined && given.length) data[name] = given;
    }
    validate ??= load();
    if (!validate(data)) throw firstRefusal(declarations, data, validate.errors ?? []);
    const out: FilterValues = new Map();
    for (const { name, value } of declarations) {
      const given = data[name];
      if (given === undefined) continue;
      const { read: convert } = valueRule(value);
      out.set(name, Array.isArray(given) ? given.map(convert) : convert(given));
    }
    return out;
  };
  const dateConditions = (values: FilterValues): Condition[] =>
    declarations
      .filter((d) => d.kind === 'gte' && d.name !== 'created_at' && values.has(d.name))
      .map((d) => ({ attr: d.name, op: 'gte', value: String(values.get(d.name)) }));
  return { declarations, names: declarations.map((d) => d.name), read, dateConditions };
}

/**
 * The D5 error of the first refused value, in declaration order (and a repeated parameter's order): one
 * parameter named, with one message, as the hand parsers gave before P292.
 */
function firstRefusal(
  declarations: readonly FilterDeclaration[],
  data: Record<string, string | string[]>,
  errors: readonly { instancePath: string }[],
): Error {
  const refused = new Set(errors.map((e) => e.instancePath));
  for (const { name, value } of declarations) {
    const given = data[name];
    if (given === undefined) continue;
    const texts = Array.isArray(given) ? given.map((text, i) => [`/${name}/${i}`, text] as const) : [[`/${name}`, given] as const];
    const bad = texts.find(([path]) => refused.has(path)) ?? (refused.has(`/${name}`) ? texts[0] : undefined);
    if (bad) return invalidField(name, valueRule(value).message(bad[1]));
  }
  return invalidField(declarations[0]?.name ?? 'query', 'Invalid value.');
}
