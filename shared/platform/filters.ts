/**
 * List filters, declared once per entity (P243): the query parameter, what it matches (`kind`), how its value is
 * read, a line for the OpenAPI document and how the store serves it (`serve`, per entity). The planner (through
 * `readFilters`), the OpenAPI document and the list-model test all read the declarations: adding a filter on an
 * existing index is one declaration and one test.
 */
import {
  booleanParam,
  dateParam,
  enumParam,
  filterTextParam,
  positiveIntParam,
  stringParams,
  type QueryParams,
} from '#platform/query-params.js';
import type { Condition } from '#platform/paged-query.js';

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

const PARSERS = { string: filterTextParam, id: positiveIntParam, date: dateParam, boolean: booleanParam };

/** The declared filters present in the query, parsed (a bad value is a 400 naming it, D5). */
export function readFilters(q: QueryParams, declarations: readonly FilterDeclaration[]): FilterValues {
  const out: FilterValues = new Map();
  for (const { name, value, repeatable } of declarations) {
    const read = (query: QueryParams) => (typeof value === 'string' ? PARSERS[value](query, name) : enumParam(query, name, value));
    if (!repeatable) {
      const parsed = read(q);
      if (parsed !== undefined) out.set(name, parsed);
      continue;
    }
    // Each value read as if it were the only one (the same 400 naming the parameter).
    const parsed = stringParams(q, name).map((one) => read({ [name]: [one] })!);
    if (parsed.length) out.set(name, parsed);
  }
  return out;
}

/** The present `gte` filters as conditions on items, but `created_at`: the created order's own key bounds it. */
export function dateConditions(values: FilterValues, declarations: readonly FilterDeclaration[]): Condition[] {
  const dated = declarations.filter((d) => d.kind === 'gte' && d.name !== 'created_at' && values.has(d.name));
  return dated.map((d) => ({ attr: d.name, op: 'gte', value: String(values.get(d.name)) }));
}
