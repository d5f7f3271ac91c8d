/**
 * List filters declared once per entity (issue 22): each names its query parameter, what it matches
 * (`kind`), how the parameter's value is read, one line for the OpenAPI document, and how the entity's
 * store serves it (`serve`, the entity's own shape). The entity's planner reads the query through
 * `readFilters`, the OpenAPI document describes every filter from the same list, and the list-model test
 * checks each by its kind; adding a filter is one declaration and one test.
 */
import { booleanParam, dateParam, enumParam, positiveIntParam, stringParam, type QueryParams } from '#platform/query-params.js';

/** How a parameter's value is read: a string, a positive integer id, a D5 date, a boolean, or one of a list. */
export type FilterValue = 'string' | 'id' | 'date' | 'boolean' | readonly string[];

export interface FilterDeclaration<Serve = unknown> {
  /** The query parameter, also the Application/Job/Company field it filters on. */
  name: string;
  /** `exact`: equal (e-mail case-insensitively); `contains`: a case-insensitive substring; `gte`: on or after. */
  kind: 'exact' | 'contains' | 'gte';
  value: FilterValue;
  /** What is compared, for the OpenAPI document (`exact`/`contains`: "the title"). */
  about: string;
  serve: Serve;
}

export type FilterValues = Map<string, string | number | boolean>;

const PARSERS = { string: stringParam, id: positiveIntParam, date: dateParam, boolean: booleanParam };

/** The declared filters present in the query, parsed (a bad value is a 400 naming it, D5). */
export function readFilters(q: QueryParams, declarations: readonly FilterDeclaration[]): FilterValues {
  const out: FilterValues = new Map();
  for (const { name, value } of declarations) {
    const parsed = typeof value === 'string' ? PARSERS[value](q, name) : enumParam(q, name, value);
    if (parsed !== undefined) out.set(name, parsed);
  }
  return out;
}
