/**
 * Query parameter parsing by the rules of D4/D5: unknown parameters are ignored; a known parameter with
 * a bad value is a 400 naming the parameter; empty values count as absent.
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

/**
 * The longest text a filter takes. An exact filter's value becomes part of a DynamoDB partition key (at most
 * 2,048 bytes; 500 characters are at most 1,500 bytes), and no value such a filter matches is stored longer than
 * 255 characters; a contains filter is held to the same.
 */
export const MAX_FILTER_CHARS = 500;

/** A text filter's value (`filters.ts`); a longer one is a 400 naming the parameter, never a key DynamoDB refuses. */
export function filterTextParam(q: QueryParams, name: string): string | undefined {
  const value = stringParam(q, name);
  if (value !== undefined && value.length > MAX_FILTER_CHARS) throw invalidField(name, `Must be at most ${MAX_FILTER_CHARS} characters.`);
  return value;
}

const TRUE = new Set(['true', '1']);
const FALSE = new Set(['false', '0']);

export function booleanParam(q: QueryParams, name: string): boolean | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  const lower = value.toLowerCase();
  if (TRUE.has(lower)) return true;
  if (FALSE.has(lower)) return false;
  throw invalidField(name, 'Must be one of true, false, 1, 0.');
}

export function enumParam<T extends string>(q: QueryParams, name: string, allowed: readonly T[]): T | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  return checkEnum(name, value, allowed);
}

export function enumParams<T extends string>(q: QueryParams, name: string, allowed: readonly T[]): T[] {
  return stringParams(q, name).map((value) => checkEnum(name, value, allowed));
}

function checkEnum<T extends string>(name: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value)) throw invalidField(name, `"${value}" is not one of ${allowed.join(', ')}.`);
  return value as T;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A date (start of that day, UTC) or a full ISO date-time, returned as a D7 timestamp. */
export function parseDateOrDateTime(value: string): string | undefined {
  const date = DATE.exec(value);
  if (date) {
    const parsed = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
    // Reject dates that roll over, such as 2026-02-30.
    if (parsed.getUTCMonth() !== Number(date[2]) - 1 || parsed.getUTCDate() !== Number(date[3])) return undefined;
    return parsed.toISOString();
  }
  if (!DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  return new Date(ms).toISOString();
}

export function dateParam(q: QueryParams, name: string): string | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  const parsed = parseDateOrDateTime(value);
  if (!parsed) throw invalidField(name, 'Must be a date (YYYY-MM-DD) or an ISO 8601 date-time.');
  return parsed;
}

export function positiveIntParam(q: QueryParams, name: string): number | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw invalidField(name, 'Must be a positive integer.');
  }
  return Number(value);
}

/** A paging parameter (D4): any run of digits with one not 0; a value above `max` is taken as `max` (P273). */
export function cappedIntParam(q: QueryParams, name: string, max: number): number | undefined {
  const value = stringParam(q, name);
  if (value === undefined) return undefined;
  if (!/^\d*[1-9]\d*$/.test(value)) throw invalidField(name, 'Must be a positive integer.');
  return Math.min(Number(value), max);
}
