/**
 * Pagination (D4): `page` and `page_size` (or `limit` where the route allows it). `next` links carry a sealed cursor
 * bound to the tenant, filters, page and page size, so following `next` reads each item once; a bare `page=N` still works.
 */
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { batchPut } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { open, seal } from '#platform/derived-keys.js';
import { expiringAt, keys } from '#platform/keys.js';
import { BadRequestError } from '#platform/errors.js';
import { cappedIntParam, stringParam, type QueryParams } from '#platform/query-params.js';

export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 50;
/** A larger `page` is read as this one: past the end of any list (its skip a safe integer), answered from the count (P273). */
const MAX_PAGE = 10 ** 12;

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
  const page = cappedIntParam(q, 'page', MAX_PAGE) ?? 1;
  const size = (name: string) => cappedIntParam(q, name, MAX_PAGE_SIZE);
  const pageSize = size('page_size') ?? (options.limitAlias ? size('limit') : undefined) ?? DEFAULT_PAGE_SIZE;
  const token = stringParam(q, 'cursor');
  const cursor = token === undefined ? undefined : openCursor(token, bindingOf(q, options, page, pageSize));
  return { page, pageSize, cursor };
}

/** The filters' values as sent, in their order (not sorted: a filter that reads only the first is bound to it, P273). */
function bindingOf(q: QueryParams, options: PageOptions, page: number, pageSize: number): string {
  const filters = options.filterParams.filter((name) => Object.hasOwn(q, name) && !PAGING_PARAMS.has(name)).map((name) => [name, q[name]]);
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

/** Characters of ids a cursor carries, and a walk's stored part (base 36, comma-separated): a token stays under 2 KB. */
const CARRIED_CHARS = 1200;
/** Bytes the position after the ids may take beside them; a longer one (a company's sort values, P273) leaves fewer ids. */
const POSITION_BYTES = 150;
/** How long a walk's parts are kept; a cursor whose part is gone computes its list again from its position. */
const WALK_SECONDS = 86_400;

/** A cursor's position: the index or list it names, and where the next page starts. */
export type Position = Record<string, string>;

/** The whole pages of `ids` from `from` that a cursor carries with the position after them (`at`), as text, and where they end. */
function fitting(ids: number[], from: number, pageSize: number, at: (i: number) => Position): { text: string; end: number } {
  let text = '';
  let fit = { text: '', end: from };
  for (let i = from; i < ids.length; i++) {
    text = text ? `${text},${ids[i].toString(36)}` : ids[i].toString(36);
    if (text.length > CARRIED_CHARS) break;
    const whole = (i + 1 - from) % pageSize === 0 || i + 1 === ids.length;
    if (whole && text.length + Buffer.byteLength(JSON.stringify(at(i))) <= CARRIED_CHARS + POSITION_BYTES) fit = { text, end: i + 1 };
  }
  return fit;
}

/**
 * The position after a page whose list goes on with `rest` (ids in list order; undefined when it does not), where
 * `at(i)` is the position after rest[i]. The cursor carries as many whole pages of the ids as fit (P258); with
 * `store`, the ids past those are stored for a walk, a cursor's worth per part, each with the position after it (P260).
 */
export async function carryOn(
  rest: number[],
  pageSize: number,
  at: (i: number) => Position,
  store: boolean,
): Promise<Position | undefined> {
  const first = fitting(rest, 0, pageSize, at);
  if (!first.end) return undefined;
  const position = { ...at(first.end - 1), ids: first.text };
  if (first.end === rest.length || !store) return position;
  const walk = randomBytes(16).toString('base64url');
  const parts: Record<string, unknown>[] = [];
  const expires = expiringAt(Math.floor(Date.now() / 1000) + WALK_SECONDS);
  for (let from = first.end; from < rest.length;) {
    const { text, end } = fitting(rest, from, pageSize, at);
    if (end === from) break; // a position too long to carry any ids: the walk computes its list again there
    parts.push({ ...keys.walk(walk, parts.length + 1), ids: text, position: at(end - 1), ...expires });
    from = end;
  }
  await batchPut(parts);
  return { ...position, walk, part: '1' };
}

/** Whether a position carries ids (or a walk's next part) to read by key. */
export function carries(position: Position): boolean {
  return position.ids !== undefined || position.walk !== undefined;
}

/** The ids of a carried text. */
export function idsOf(carried: unknown): number[] {
  if (typeof carried !== 'string' || !/^[0-9a-z]{1,10}(,[0-9a-z]{1,10})*$/.test(carried)) throw invalidCursor();
  return carried.split(',').map((id) => parseInt(id, 36));
}

/** A walk's stored part; read again consistently when not found (it was written pages ago, but may not show yet). */
async function walkPart(walk: string, part: string): Promise<{ ids: number[]; position: Position } | undefined> {
  if (!/^[\w-]{22}$/.test(walk) || !/^[1-9]\d{0,5}$/.test(part)) throw invalidCursor();
  const get = (ConsistentRead: boolean) =>
    db().send(new GetCommand({ TableName: config().tableName, Key: keys.walk(walk, Number(part)), ConsistentRead }));
  const item = (await get(false)).Item ?? (await get(true)).Item;
  return item && { ids: idsOf(item.ids), position: item.position as Position };
}

/**
 * A page of carried ids: up to `size` records in the ids' order, read by `read` (one gone is left out), those
 * `keep` refuses (no longer matching) passed over for the next ids, and a walk's next part read when the ids run
 * out; and the position after the page. A position without ids is the list's to compute again from there.
 */
export async function readCarried<T>(
  position: Position,
  size: number,
  read: (ids: number[]) => Promise<T[]>,
  keep: (record: T) => boolean,
) {
  const { ids: text, ...kept }: { [name: string]: string | undefined } = position;
  let { walk, part, ...after } = kept;
  let ids = text === undefined ? [] : idsOf(text);
  const page: T[] = [];
  let at = 0;
  while (page.length < size) {
    if (at === ids.length) {
      const next: { ids: number[]; position: Position } | undefined = walk ? await walkPart(walk, part ?? '') : undefined;
      if (!next) {
        walk = undefined;
        break;
      }
      [ids, after, part, at] = [next.ids, next.position, String(Number(part) + 1), 0];
    }
    const batch = ids.slice(at, at + size - page.length);
    at += batch.length;
    page.push(...(await read(batch)).filter(keep));
  }
  const left = ids.slice(at).map((id) => id.toString(36));
  const next = { ...after, ...(left.length ? { ids: left.join(',') } : {}), ...(walk ? { walk, part } : {}) };
  return { page, position: next as Position };
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

/** Where a request stands in a walk: the source its cursor names, and whether a bare `page=N` skips to it. */
export interface Walk {
  cursorIndex?: unknown;
  skipping?: boolean;
}

export const walkOf = (request: PageRequest): Walk => ({
  cursorIndex: request.cursor?.position.index,
  skipping: request.page > 1 && !request.cursor,
});

/** `next`/`previous` links on the request's own URL, keeping every parameter; `next` with a cursor after the page, bound to them. */
export function envelope<T>(
  link: LinkContext,
  options: PageOptions,
  request: PageRequest,
  page: { count: number; position?: Record<string, unknown> },
  results: T[],
): PageEnvelope<T> {
  const { count, position } = page;
  // A cursor too long to be taken back (a position holding a long name) leaves a bare `page=N` (P273).
  const sealed = position && makeCursor(link.query, options, request.page + 1, request.pageSize, { position, count });
  const cursor = sealed && sealed.length <= MAX_CURSOR_CHARS ? sealed : undefined;
  return {
    count,
    next: request.page * request.pageSize < count ? urlWith(link, request.page + 1, cursor) : null,
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
