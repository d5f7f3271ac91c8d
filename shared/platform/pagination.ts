/**
 * Pagination (D4): `page` and `page_size` (or `limit` where the route allows it). `next` links carry a sealed cursor
 * bound to the tenant, filters, page and page size, so following `next` reads each item once; a bare `page=N` still works.
 */
import { createHash } from 'node:crypto';
import { open, seal } from '#platform/derived-keys.js';
import { BadRequestError } from '#platform/errors.js';
import { positiveIntParam, stringParam, type QueryParams } from '#platform/query-params.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 50;

/** Parameters that shape the page rather than select records; they stay out of the filter hash. */
const PAGING_PARAMS = new Set(['page', 'page_size', 'limit', 'cursor', 'pagination']);

export interface Cursor {
  /** The position after which the page starts (index-specific, validated by the reader). */
  position: Record<string, unknown>;
  /** Total of the matching records, carried so later pages need not count again. */
  count: number;
}

export interface PageRequest {
  page: number;
  pageSize: number;
  cursor?: Cursor;
}

export interface PageOptions {
  /** The tenant the list belongs to, for example `company:12` or `partner:3`. */
  scope: string;
  /** Whether `limit` is accepted as an alias of `page_size` (jobs). */
  limitAlias?: boolean;
  /** The filter parameters this route knows; the cursor is bound to their values. */
  filterParams: readonly string[];
}

export function pageRequest(q: QueryParams, options: PageOptions): PageRequest {
  const page = positiveIntParam(q, 'page') ?? 1;
  const size = positiveIntParam(q, 'page_size') ?? (options.limitAlias ? positiveIntParam(q, 'limit') : undefined);
  const pageSize = Math.min(size ?? DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const token = stringParam(q, 'cursor');
  const cursor = token === undefined ? undefined : openCursor(token, bindingOf(q, options, page, pageSize));
  return { page, pageSize, cursor };
}

function bindingOf(q: QueryParams, options: PageOptions, page: number, pageSize: number): string {
  const filters = options.filterParams
    .filter((name) => Object.hasOwn(q, name) && !PAGING_PARAMS.has(name))
    .map((name) => [name, [...q[name]].sort()]);
  return createHash('sha256')
    .update(JSON.stringify([options.scope, page, pageSize, filters]))
    .digest('base64url');
}

/** Longer tokens are never minted (a position is a handful of keys); refusing them bounds the work. */
const MAX_CURSOR_CHARS = 2048;
/** The purpose of the cursors' key (`derived-keys.ts`). */
const CURSOR_KEY = 'his-page-cursor-v1';

/** A sealed cursor for `nextPage` (clients can neither read nor change it); only a request with the same binding uses it. */
export function makeCursor(q: QueryParams, options: PageOptions, nextPage: number, pageSize: number, cursor: Cursor): string {
  return seal(CURSOR_KEY, { b: bindingOf(q, options, nextPage, pageSize), c: cursor });
}

/** At most this many characters of carried ids in a cursor (base 36, comma-separated): a token stays under 2 KB. */
const CARRIED_CHARS = 1200;

/**
 * The ids a cursor carries for the pages after it (P258): as many whole pages of `ids` as fit (all of them when
 * they do), and how many that is.
 */
export function carriedIds(ids: number[], pageSize: number): { text: string; count: number } | undefined {
  let text = '';
  let fit = { text: '', count: 0 };
  for (const [i, id] of ids.entries()) {
    text = text ? `${text},${id.toString(36)}` : id.toString(36);
    if (text.length > CARRIED_CHARS) break;
    if ((i + 1) % pageSize === 0 || i + 1 === ids.length) fit = { text, count: i + 1 };
  }
  return fit.count ? fit : undefined;
}

/** The ids of `carriedIds`'s text. */
export function idsOf(carried: unknown): number[] {
  if (typeof carried !== 'string' || !/^[0-9a-z]{1,10}(,[0-9a-z]{1,10})*$/.test(carried)) throw invalidCursor();
  return carried.split(',').map((id) => parseInt(id, 36));
}

/**
 * A page of carried ids: up to `size` records in the ids' order, read by `read` (one gone is left out), those
 * `keep` refuses (no longer matching) passed over for the next ids; and the ids not reached.
 */
export async function readCarried<T>(ids: number[], size: number, read: (ids: number[]) => Promise<T[]>, keep: (record: T) => boolean) {
  const page: T[] = [];
  let at = 0;
  while (page.length < size && at < ids.length) {
    const batch = ids.slice(at, at + size - page.length);
    at += batch.length;
    page.push(...(await read(batch)).filter(keep));
  }
  return { page, rest: ids.slice(at) };
}

export function invalidCursor(): BadRequestError {
  return new BadRequestError('The "cursor" parameter is not valid; follow the "next" link as given.', 'invalid_cursor');
}

/** What a cursor must hold: a binding, a position of non-empty string key attributes and a count. */
function isCursorPayload(value: unknown): value is { b: string; c: Cursor } {
  if (typeof value !== 'object' || value === null) return false;
  const { b, c } = value as { b?: unknown; c?: { position?: unknown; count?: unknown } };
  if (typeof b !== 'string' || typeof c !== 'object' || c === null) return false;
  const { position, count } = c;
  if (typeof count !== 'number' || !Number.isSafeInteger(count) || count < 0) return false;
  if (typeof position !== 'object' || position === null || Array.isArray(position)) return false;
  const values = Object.values(position);
  return values.length > 0 && values.every((v) => typeof v === 'string' && v !== '');
}

/**
 * A token we did not mint (forged, corrupt, truncated) is a 400. A genuine one bound to other filters, another page
 * or another tenant is ignored: the page is computed without it (correct, only slower).
 */
function openCursor(token: string, binding: string): Cursor | undefined {
  const payload = open(CURSOR_KEY, token, MAX_CURSOR_CHARS);
  if (!isCursorPayload(payload)) throw invalidCursor();
  return payload.b === binding ? payload.c : undefined;
}

export interface PageEnvelope<T> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export interface LinkContext {
  /** Absolute URL of the request without its query string. */
  baseUrl: string;
  query: QueryParams;
}

/** Builds `next`/`previous` links on the request's own URL, keeping every query parameter. */
export function envelope<T>(
  link: LinkContext,
  request: PageRequest,
  count: number,
  results: T[],
  nextCursor: string | undefined,
): PageEnvelope<T> {
  return {
    count,
    next: request.page * request.pageSize < count ? urlWith(link, request.page + 1, nextCursor) : null,
    previous:
      request.page > 1 ? urlWith(link, Math.min(request.page - 1, Math.max(1, Math.ceil(count / request.pageSize))), undefined) : null,
    results,
  };
}

function urlWith(link: LinkContext, page: number, cursor: string | undefined): string {
  const search = new URLSearchParams();
  for (const [name, values] of Object.entries(link.query)) {
    if (name === 'page' || name === 'cursor') continue;
    for (const value of values) search.append(name, value);
  }
  search.set('page', String(page));
  if (cursor) search.set('cursor', cursor);
  return `${link.baseUrl}?${search.toString()}`;
}
