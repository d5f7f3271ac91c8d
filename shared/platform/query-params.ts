/**
 * The query string as the lists read it (D4/D5): unknown parameters are ignored; empty values count as absent.
 * Filter values are validated by schemas generated from their declarations (`filters.ts`, P292); what is parsed
 * by hand here is what no filter schema says: the paging parameters (D4).
 */
import { invalidField } from '#platform/errors.js';

export type QueryParams = Record<string, string[]>;

interface ProxyQuery {
  queryStringParameters?: Record<string, string | undefined> | null;
  multiValueQueryStringParameters?: Record<string, string[] | undefined> | null;
}

/** The query as name → values, in an object without a prototype: names are the client's (`toString`, `__proto__`). */
export function queryParams(event: ProxyQuery): QueryParams {
  const out = Object.create(null) as QueryParams;
  for (const [name, values] of Object.entries(event.multiValueQueryStringParameters ?? {})) {
    if (values) out[name] = values;
  }
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) {
    if (!Object.hasOwn(out, name) && value !== undefined) out[name] = [value];
  }
  return out;
}

function values(q: QueryParams, name: string): string[] {
  return (Object.hasOwn(q, name) ? q[name] : []).filter((v) => v !== '');
}

export function stringParam(q: QueryParams, name: string): string | undefined {
  return values(q, name)[0];
}

export function stringParams(q: QueryParams, name: string): string[] {
  return values(q, name);
}

/** A paging parameter (D4): any run of digits with one not 0; a value above `max` is taken as `max` (P273). */
export function cappedIntParam(q: QueryParams, name: string, max: number): number | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  if (!/^\d*[1-9]\d*$/.test(value)) throw invalidField(name, 'Must be a positive integer.');
  return Math.min(Number(value), max);
}
