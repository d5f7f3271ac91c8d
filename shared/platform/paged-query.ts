/**
 * One page of one partition and its count (docs/access-patterns.md). Sources (`kindOf`): `keys` in list order (a
 * slot, a collection, lookup items, P241; other conditions checked on the items read), `slim` (SLIM's projection,
 * filtered in the Query), `dateRange` (keys by `<date>#<created sort>`, put in list order in memory).
 */
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { itemsAt, itemsOf } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { compactFrom, createdSortOfDateSort, idOfCollectionSort, keys, type Key } from '#platform/keys.js';
import { TABLE, indexDefinition, tableDefinition, type IndexDefinition, type IndexName } from '#platform/table.js';
import { carries, carryOn, invalidCursor, readCarried, type PageRequest, type Position } from '#platform/pagination.js';

export type Condition =
  | { attr: string; op: 'eq'; value: string | number | boolean }
  | { attr: string; op: 'contains'; value: string }
  | { attr: string; op: 'gte'; value: string };

export type SourceIndex = IndexName | typeof TABLE;

export interface CollectionQuery {
  index: SourceIndex;
  /** With `index: TABLE`: the lookup's name (for cursors) and the key of the record an id names. */
  lookup?: { name: string; itemKey: (id: number) => Key };
  partitionValue: string;
  /** The sort key's lower bound (a date filter). */
  sortKeyFrom?: string;
  /** The filters the partition does not answer by itself. */
  conditions: Condition[];
  /** The partition's total, from a counter item. */
  total?: () => Promise<number>;
  /** The number of matches, when already known. */
  matches?: () => Promise<number>;
  /** Oldest first. */
  ascending?: boolean;
  /** The partition's keys, when a count has read them (`countRange`). */
  entries?: Item[];
  /** A keys-only index sorted in list order by something other than creation (an ordering index). */
  ordered?: boolean;
  /** A record's base-table key by its id, and whether an item read by it is the tenant's: a cursor then carries ids (P259). */
  records?: { key: (id: number) => Key; owned: (item: Item) => boolean };
  /** Entries read per wanted match when filtering (partition size over matches); without it, twice ahead. */
  readAhead?: number;
  /** Other exact filters' keys-only partitions (`attr`: the condition each answers), intersected on a first page (P161). */
  keyFilters?: { attr: string; query: CollectionQuery; size: () => Promise<number>; countUpTo?: (limit: number) => Promise<number> }[];
}

/** Where one exact filter value's records are read, in creation order: its slot, or its lookup items (P241). */
export function exactSource(
  partitionValue: string,
  slot: IndexName | undefined,
  filter: string,
  itemKey: (id: number) => Key,
): Pick<CollectionQuery, 'index' | 'partitionValue' | 'lookup'> {
  return slot ? { index: slot, partitionValue } : { index: TABLE, partitionValue, lookup: { name: filter, itemKey } };
}

export interface PageResult<T> {
  items: T[];
  count: number;
  /** Where the next page starts. */
  position?: Record<string, unknown>;
}

type Item = Record<string, unknown>;
type SourceKind = 'keys' | 'slim' | 'dateRange';

/** Index sort keys that hold `<date>#<created sort>`. */
const DATE_SORT_KEYS = new Set(['D1SK', 'D2SK']);
/** The sort key of every index in creation order (COLLECTION, LOOKUP, SLIM, the slots), compact (P235). */
const COLLECTION_SORT_KEY = 'GSI1SK';

/** A source's keys and projection (the base table's lookup items are keys only). */
function definitionOf(index: SourceIndex): Pick<IndexDefinition, 'partitionKey' | 'sortKey' | 'projection'> {
  if (index !== TABLE) return indexDefinition(index);
  return { partitionKey: tableDefinition.partitionKey, sortKey: tableDefinition.sortKey, projection: 'KEYS_ONLY' };
}

/** Which source a query reads, as a cursor records it. */
export function sourceOf(query: CollectionQuery): string {
  return query.index === TABLE ? `${TABLE}#${query.lookup?.name ?? ''}` : query.index;
}

/** A Query of a source: a lookup item is read as its record's entry. */
async function send(query: CollectionQuery, input: QueryCommandInput): Promise<QueryCommandOutput> {
  const out = await db().send(new QueryCommand(input));
  if (query.index !== TABLE || !out.Items) return out;
  const { lookup } = query;
  if (!lookup) throw new Error('a base-table source needs its lookup');
  const entry = (sort: string) => ({ ...lookup.itemKey(idOfCollectionSort(sort)), [COLLECTION_SORT_KEY]: sort });
  return { ...out, Items: out.Items.map((raw) => entry(String(raw[tableDefinition.sortKey]))) };
}

/** The kind of source a query reads (see above). */
export function kindOf(query: CollectionQuery): SourceKind {
  const index = definitionOf(query.index);
  if (index.projection === 'INCLUDE') return 'slim';
  return DATE_SORT_KEYS.has(index.sortKey) && !query.ordered ? 'dateRange' : 'keys';
}

/** In-memory form of a condition, for items read by key. */
function matchesAll(item: Item, conditions: Condition[]): boolean {
  return conditions.every((c) => {
    const value = item[c.attr];
    if (c.op === 'eq') return value === c.value;
    if (typeof value !== 'string') return false;
    return c.op === 'gte' ? value >= c.value : value.includes(c.value);
  });
}

function baseInput(query: CollectionQuery): QueryCommandInput {
  const { index } = query;
  const definition = definitionOf(index);
  const names: Record<string, string> = { '#pk': definition.partitionKey };
  const values: Record<string, unknown> = { ':pk': query.partitionValue };
  let keyCondition = '#pk = :pk';
  if (query.sortKeyFrom !== undefined) {
    names['#sk'] = definition.sortKey;
    // `created_at >=` on an index in creation order bounds its compact sort key by the same instant (P235).
    const collectionSorted = definition.sortKey === COLLECTION_SORT_KEY || index === TABLE;
    values[':sk'] = collectionSorted ? compactFrom(query.sortKeyFrom) : query.sortKeyFrom;
    keyCondition += ' AND #sk >= :sk';
  }
  const filters: string[] = [];
  // Only SLIM projects the filtered attributes: it filters in the Query itself.
  if (definition.projection === 'INCLUDE') {
    query.conditions.forEach((condition, i) => {
      names[`#f${i}`] = condition.attr;
      values[`:f${i}`] = condition.value;
      if (condition.op === 'eq') filters.push(`#f${i} = :f${i}`);
      else if (condition.op === 'gte') filters.push(`#f${i} >= :f${i}`);
      else filters.push(`contains(#f${i}, :f${i})`);
    });
  }
  return {
    TableName: config().tableName,
    ...(index === TABLE ? {} : { IndexName: index }),
    KeyConditionExpression: keyCondition,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: query.ascending === true,
  };
}

/** Without the index's partition, which `startKey` takes from the request (a long filter value made a cursor too long, P273). */
function positionOf(query: CollectionQuery, entry: Item): Record<string, unknown> {
  const position: Record<string, unknown> = { index: sourceOf(query) };
  const sortKey = query.index === TABLE ? COLLECTION_SORT_KEY : definitionOf(query.index).sortKey;
  for (const name of [tableDefinition.partitionKey, tableDefinition.sortKey, sortKey]) position[name] = entry[name];
  return position;
}

/** The start key for a position, with the partition forced to this query's own (tenant) partition. */
function startKey(query: CollectionQuery, position: Record<string, unknown>): Record<string, unknown> {
  if (query.index === TABLE) {
    const sort = position[COLLECTION_SORT_KEY];
    if (typeof sort !== 'string' || !sort) throw invalidCursor();
    return keys.lookup(query.partitionValue, sort);
  }
  const index = indexDefinition(query.index);
  const key: Record<string, unknown> = {};
  for (const name of [tableDefinition.partitionKey, tableDefinition.sortKey, index.sortKey]) {
    if (typeof position[name] !== 'string' || !position[name]) throw invalidCursor();
    key[name] = position[name];
  }
  key[index.partitionKey] = query.partitionValue;
  return key;
}

/** How many entries of a source match: from a counter, or counted as cheaply as the source allows. */
export async function countMatching(query: CollectionQuery, limit = Number.MAX_SAFE_INTEGER): Promise<number> {
  if (query.matches) return query.matches();
  if (query.total && !query.conditions.length && query.sortKeyFrom === undefined) return query.total();
  const kind = kindOf(query);
  if (kind === 'keys' && query.conditions.length) return (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER)).items.length;
  const input = baseInput(query);
  if (query.total && !query.conditions.length && query.sortKeyFrom !== undefined && limit === Number.MAX_SAFE_INTEGER)
    return (await countEitherSide(input, query.total)).count;
  let count = 0;
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const bound = limit - count < 10_000 ? { Limit: limit - count } : {};
    const out = await db().send(new QueryCommand({ ...input, ...bound, Select: 'COUNT', ExclusiveStartKey: exclusiveStartKey }));
    count += out.Count ?? 0;
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey && count < limit);
  return count;
}

/**
 * The keys of a range `>= bound` of a counted partition (P162): the range and its complement are counted side
 * by side in doubling steps, and whichever ends first answers. The range's side is read as keys (at the same
 * cost), which a page of a narrow range then uses, and its complement a step behind: a narrow range reads 1.5–2
 * times its keys, a broad one 3–5 times its complement (P260).
 */
async function countEitherSide(input: QueryCommandInput, total: () => Promise<number>): Promise<{ count: number; entries?: Item[] }> {
  const below: QueryCommandInput = { ...input, KeyConditionExpression: input.KeyConditionExpression!.replace('#sk >= :sk', '#sk < :sk') };
  const sides = [input, { ...below, Select: 'COUNT' as const }].map((sideInput) => ({
    input: sideInput,
    count: 0,
    start: undefined as Record<string, unknown> | undefined,
    done: false,
    entries: [] as Item[],
  }));
  for (let limit = 100, behind = 100; ; [behind, limit] = [limit, Math.min(limit * 2, 10_000)]) {
    await Promise.all(
      sides.map(async (side, i) => {
        const out = await db().send(new QueryCommand({ ...side.input, Limit: i ? behind : limit, ExclusiveStartKey: side.start }));
        side.count += out.Count ?? 0;
        side.entries.push(...(out.Items ?? []));
        side.start = out.LastEvaluatedKey;
        side.done = !side.start;
      }),
    );
    if (sides[0].done) return { count: sides[0].count, entries: sides[0].entries };
    // The total is read only when it is needed (a read begun before and left unawaited was paid, and not counted).
    if (sides[1].done) return { count: Math.max(0, (await total()) - sides[1].count) };
  }
}

/** A date range's count (`total`: its partition's) and, when the range was the smaller side, its keys. */
export async function countRange(query: CollectionQuery & { total: () => Promise<number> }) {
  return countEitherSide(baseInput(query), query.total);
}

/** Reads matching items after `from` until `wanted` are collected or the partition ends. */
async function collect(
  query: CollectionQuery,
  kind: SourceKind,
  from: Record<string, unknown> | undefined,
  wanted: number,
  /** False for a skip: a slim source then reads no items. */
  fetchItems = true,
): Promise<{ items: Item[]; position?: Record<string, unknown> }> {
  const input = baseInput(query);
  const residual = kind === 'keys' ? query.conditions : [];
  const filtered = Boolean(input.FilterExpression) || residual.length > 0;
  const items: Item[] = [];
  let exclusiveStartKey = from;
  while (items.length < wanted) {
    const remaining = wanted - items.length;
    // Unfiltered, the Limit is exact; filtered, read a little ahead; reading every match, whole 1 MB pages.
    const limit = !filtered
      ? Math.min(remaining, 1000)
      : wanted === Number.MAX_SAFE_INTEGER
        ? undefined
        : query.readAhead
          ? Math.min(Math.ceil(remaining * query.readAhead) + 1, 200)
          : Math.min(Math.max(remaining * 2, 25), 200);
    const out = await send(query, { ...input, ...(limit ? { Limit: limit } : {}), ExclusiveStartKey: exclusiveStartKey });
    const entries = out.Items ?? [];
    const read =
      kind === 'keys' || (kind === 'slim' && fetchItems) ? await itemsAt(kind === 'slim' ? entries.slice(0, remaining) : entries) : entries;
    for (let i = 0; i < entries.length; i++) {
      const item = read[i];
      if (!item || (residual.length && !matchesAll(item, residual))) continue;
      items.push(item);
      if (items.length === wanted) return { items, position: positionOf(query, entries[i]) };
    }
    if (!out.LastEvaluatedKey) return { items };
    exclusiveStartKey = out.LastEvaluatedKey;
  }
  return { items }; // wanted ≤ 0
}

/** A partition's entries in order (a slim one's: those matching), all or the first `limit`. */
export async function readKeys(query: CollectionQuery, limit = Infinity): Promise<Item[]> {
  const input = baseInput(query);
  const entries: Item[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const bound = limit < Infinity ? { Limit: Math.min(limit - entries.length, 10_000) } : {};
    const out = await send(query, { ...input, ...bound, ExclusiveStartKey: exclusiveStartKey });
    entries.push(...(out.Items ?? []));
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey && entries.length < limit);
  return entries;
}

/** A filter's keys (~115 bytes, a thirtieth of an item) are intersected while fewer than this many times the entries left (P161). */
const KEY_INTERSECT_FACTOR = 20;
/** The most entries read per wanted match when a cursor says how many match. */
const MAX_READ_AHEAD = 4;

/**
 * The entries also in the other filters' partitions, smallest first, while their keys cost less than the
 * remaining entries' items; and the conditions still to check on items.
 */
async function intersectKeys(query: CollectionQuery, pageSize: number, read: Item[]): Promise<{ entries: Item[]; residual: Condition[] }> {
  let entries = read;
  const residual = [...query.conditions];
  // Only entries past a page are worth saving; a filter counted by its keys is counted only that far.
  const worth = (left: number) => KEY_INTERSECT_FACTOR * (left - pageSize);
  if (worth(entries.length) <= 0) return { entries, residual };
  const limit = worth(entries.length) + 1;
  const filters = await Promise.all(
    (query.keyFilters ?? []).map(async (f) => ({ ...f, size: f.countUpTo ? await f.countUpTo(limit) : await f.size() })),
  );
  for (const filter of filters.sort((a, b) => a.size - b.size)) {
    if (filter.size > worth(entries.length)) break;
    const members = new Set((await readKeys({ ...filter.query, sortKeyFrom: query.sortKeyFrom })).map((e) => String(e.PK)));
    entries = entries.filter((e) => members.has(String(e.PK)));
    const answered = residual.findIndex((c) => c.attr === filter.attr);
    residual.splice(answered, 1);
  }
  return { entries, residual };
}

/** The position after `skip` matches, read as keys where nothing is to check. */
async function skipTo(query: CollectionQuery, kind: SourceKind, skip: number): Promise<Record<string, unknown> | undefined> {
  if (!query.conditions.length && kind === 'keys') {
    const entries = await readKeys(query, skip);
    return entries.length < skip ? undefined : positionOf(query, entries[skip - 1]);
  }
  const skipped = await collect(query, kind, undefined, skip, false);
  return skipped.items.length < skip ? undefined : skipped.position;
}

/** A date range in list order: every key of the range, newest created first. */
async function readDateRange(query: CollectionQuery, request: PageRequest): Promise<PageResult<Item>> {
  const sortKey = indexDefinition(query.index).sortKey;
  const created = (e: Item) => createdSortOfDateSort(String(e[sortKey]));
  const entries = (query.entries ?? (await readKeys(query))).sort((a, b) =>
    created(a) < created(b) ? 1 : created(a) > created(b) ? -1 : 0,
  );
  const { conditions } = query;
  const read = conditions.length ? await itemsAt(entries) : [];
  const ordered = entries
    .map((entry, i) => ({ entry, item: read[i] }))
    .filter((o) => !conditions.length || (o.item && matchesAll(o.item, conditions)));
  const count = request.cursor ? request.cursor.count : ordered.length;
  let start = (request.page - 1) * request.pageSize;
  if (request.cursor) {
    const after = request.cursor.position.after;
    if (typeof after !== 'string' || !after) throw invalidCursor();
    start = ordered.findIndex((o) => created(o.entry) < after);
    if (start < 0) return { items: [], count };
  }
  const slice = ordered.slice(start, start + request.pageSize);
  const items = conditions.length ? slice.map((o) => o.item!) : await itemsOf(slice.map((o) => o.entry));
  const rest = ordered.slice(start + request.pageSize).map((o) => o.entry);
  const position = (entry: Item) => ({ index: sourceOf(query), after: created(entry) });
  return { items, count, position: await carrying(query, slice.at(-1)?.entry, rest, request.pageSize, position) };
}

/** The record id an entry or item names (a date index's by its created sort). */
function idOf(query: CollectionQuery, entry: Item): number {
  const sortKey = definitionOf(query.index).sortKey;
  const dated = DATE_SORT_KEYS.has(sortKey) && !query.ordered;
  return idOfCollectionSort(dated ? createdSortOfDateSort(String(entry[sortKey])) : String(entry[COLLECTION_SORT_KEY]));
}

/**
 * The position after `last` (a page's last match), or, when the source can read records by id, the ids of `rest`
 * (the matches after it, in order) carried for the next pages (P259), and for a date range stored past what the
 * cursor holds: its next pages would otherwise read the range again (P260).
 */
async function carrying(
  query: CollectionQuery,
  last: Item | undefined,
  rest: Item[],
  pageSize: number,
  position: (entry: Item) => Record<string, unknown>,
): Promise<Record<string, unknown> | undefined> {
  if (!last) return undefined;
  const at = (i: number) => position(rest[i]) as Position;
  const ids = () => rest.map((entry) => idOf(query, entry));
  return (query.records && (await carryOn(ids(), pageSize, at, kindOf(query) === 'dateRange'))) || position(last);
}

/** A page of the ids a cursor carries, each record read by key and checked again; then the position they ran up to. */
async function carriedPage(query: CollectionQuery, request: PageRequest, records: NonNullable<CollectionQuery['records']>) {
  const read = (batch: number[]) => itemsOf(batch.map(records.key));
  const keep = (item: Item) => records.owned(item) && matchesAll(item, query.conditions);
  const { page, position } = await readCarried(request.cursor!.position as Position, request.pageSize, read, keep);
  // A walk whose stored ids are gone goes on from where they ran up to.
  if (!page.length && !carries(position)) return readPage(query, { ...request, cursor: { ...request.cursor!, position } });
  return { items: page, count: request.cursor!.count, position };
}

/** The page at `skip` of every match (the count); `entries`: the page's items are still to read. */
async function pageOf(
  query: CollectionQuery,
  all: Item[],
  skip: number,
  size: number,
  entries: boolean,
  extra = {},
): Promise<PageResult<Item>> {
  const page = all.slice(skip, skip + size);
  const items = entries ? await itemsOf(page) : page;
  const position = await carrying(query, page.at(-1), all.slice(skip + size), size, (entry) => ({ ...positionOf(query, entry), ...extra }));
  return { items, count: all.length, position };
}

/** A first page with nothing to check (P255): its keys and one more; keys that end within it are the count, no counter read (P295). */
async function firstKeysPage(query: CollectionQuery, kind: SourceKind, pageSize: number): Promise<PageResult<Item> | undefined> {
  const out = await send(query, { ...baseInput(query), Limit: pageSize + 1 });
  const entries = out.Items ?? [];
  // A Query stops at 1 MB (an index that projects large items): short of the page and one more, the entries
  // read say nothing of the count, and the page is read the usual way.
  if (out.LastEvaluatedKey && entries.length <= pageSize) return undefined;
  const [page, more] = [entries.slice(0, pageSize), entries.length > pageSize];
  const [count, items] = await Promise.all([more ? countMatching(query) : entries.length, itemsOf(page)]);
  // A record gone in between: the page is read the usual way.
  if (items.length < page.length) return { ...(await collect(query, kind, undefined, pageSize)), count };
  return { items, count, position: more ? positionOf(query, page[pageSize - 1]) : undefined };
}

/** One page of a source, with the count of its matches (from the cursor on later pages). */
export async function readPage(query: CollectionQuery, request: PageRequest): Promise<PageResult<Item>> {
  const kind = kindOf(query);
  // A cursor of another source (the counts chose differently since) is dropped: the page is still right.
  if (request.cursor && request.cursor.position.index !== sourceOf(query)) request = { ...request, cursor: undefined };
  if (request.cursor && carries(request.cursor.position as Position) && query.records) return carriedPage(query, request, query.records);
  if (kind === 'dateRange') return readDateRange(query, request);
  const skip = (request.page - 1) * request.pageSize;
  if (kind === 'keys' && query.conditions.length && !request.cursor && !query.matches && query.keyFilters?.length) {
    const read = await readKeys(query);
    const { entries, residual } = await intersectKeys(query, request.pageSize, read);
    const matching = residual.length ? (await itemsOf(entries)).filter((i) => matchesAll(i, residual)) : entries;
    // Later pages read ahead by the share that matches.
    const ahead = String(Math.min(MAX_READ_AHEAD, Math.max(1, read.length / Math.max(matching.length, 1))));
    return pageOf(query, matching, skip, request.pageSize, !residual.length, { ahead });
  }
  // Counting a filtered keys partition or a slim scan reads every match: that read serves the page too.
  if (kind === 'keys' && query.conditions.length && !request.cursor && !query.matches)
    return pageOf(query, (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER)).items, skip, request.pageSize, false);
  if (kind === 'slim' && !request.cursor)
    return pageOf(query, (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER, false)).items, skip, request.pageSize, true);
  const ahead = Number(request.cursor?.position.ahead);
  if (kind === 'keys' && query.conditions.length && Number.isFinite(ahead) && ahead >= 1)
    query = { ...query, readAhead: Math.min(MAX_READ_AHEAD, ahead) };
  if (!request.cursor && skip === 0 && !query.conditions.length) {
    const first = await firstKeysPage(query, kind, request.pageSize);
    if (first) return first;
  }
  const count = request.cursor ? request.cursor.count : await countMatching(query);
  if (skip >= count) return { items: [], count };
  let from: Record<string, unknown> | undefined;
  if (request.cursor) {
    from = startKey(query, request.cursor.position);
  } else if (skip > 0) {
    const position = await skipTo(query, kind, skip);
    if (!position) return { items: [], count };
    from = startKey(query, position);
  }
  // The count says how many the page can hold: the read stops there.
  const page = await collect(query, kind, from, Math.min(request.pageSize, count - skip));
  // A filtered keys walk passes its share of matches on (P161, P177).
  const share = kind === 'keys' && query.conditions.length && query.readAhead ? { ahead: String(query.readAhead) } : {};
  return { items: page.items, count, position: page.position ? { ...page.position, ...share } : undefined };
}
