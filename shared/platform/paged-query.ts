/**
 * Reads one page of a collection that lives under one index partition (a company's jobs or applications,
 * the members of one exact-filter slot, a date range), newest first, with optional filters. A request pays
 * for what it returns: counting, skipping and reading are separate, the unfiltered total of a partition comes
 * from a counter item, a cursor carries the position and the count, and a keys-only partition is read as
 * keys with only the page's items fetched (docs/access-patterns.md, "Redesign").
 *
 * Three kinds of source, told apart by the index definition (no index projects whole items since P234):
 * - `keys`: a keys-only index in list order (the exact-filter slots); other filters run in memory on the
 *   items batch-read for the keys;
 * - `slim`: the INCLUDE projection (SLIM); other filters run as a FilterExpression, the matches' items batch-read;
 * - `dateRange`: a keys-only index sorted by `<date>#<created sort>` (D1, D2); the matching range is read as
 *   keys and put in list order by the created sort inside each key.
 * The base table itself (`TABLE`, P241) is a `keys` source too: a partition of lookup items, each sorted by its
 * record's collection sort, read like a keys-only slot (each item read as the entry of the record it names).
 *
 * Which source a list reads, and the counts that choice needs, are `paged-sources.ts`.
 */
import { QueryCommand, type QueryCommandInput, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, primaryKeyOf } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { compactFrom, createdSortOfDateSort, idOfCollectionSort, keys, type Key } from '#platform/keys.js';
import { TABLE, indexDefinition, tableDefinition, type IndexDefinition, type IndexName } from '#platform/table.js';
import { invalidCursor, type PageRequest } from '#platform/pagination.js';

export type Condition =
  | { attr: string; op: 'eq'; value: string | number | boolean }
  | { attr: string; op: 'contains'; value: string }
  | { attr: string; op: 'gte'; value: string }
  | { attr: string; op: 'in'; value: readonly string[] };

export type SourceIndex = IndexName | typeof TABLE;

export interface CollectionQuery {
  index: SourceIndex;
  /** With `index: TABLE`: the lookup's name (cursors tell lookups apart by it) and the key of the record an id names. */
  lookup?: { name: string; itemKey: (id: number) => Key };
  partitionValue: string;
  /** Lower bound on the index sort key (a date filter served by the key condition). */
  sortKeyFrom?: string;
  /** With it, an upper bound (the companies' `status` order read for a `status` filter: its statuses' run). */
  sortKeyTo?: string;
  /** The filters the partition does not answer by itself. */
  conditions: Condition[];
  /** Total of the whole partition from a counter item; used when nothing else filters. */
  total?: () => Promise<number>;
  /** The number of matches, when a counter already knows it (a broad filter walked on its collection). */
  matches?: () => Promise<number>;
  /** Oldest (smallest sort key) first instead of newest first. */
  ascending?: boolean;
  /** A keys-only index whose sort key is itself the list order (an ordering index), read as a `keys` source. */
  ordered?: boolean;
  /** Entries read per wanted match when filtering (the partition's size over the matches, when known): without it, twice ahead. */
  readAhead?: number;
  /**
   * The base-table keys (`PK`) of the records a keys-only walk returns (P252): entries of others are passed
   * over without their items being read. Read once per request, by the planner.
   */
  members?: () => Promise<ReadonlySet<string>>;
  /** Other exact filters' keys-only partitions (`attr`: the condition each answers), intersected on a first page (P161). */
  keyFilters?: { attr: string; query: CollectionQuery; size: () => Promise<number>; countUpTo?: (limit: number) => Promise<number> }[];
}

/**
 * Where a list reads one exact filter value's records, in creation order (P241): the filter's slot index, or,
 * without one, its lookup items in the base table (`itemKey`: the key of the record an id names).
 */
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
  /** Position of the last item of the page, for the next page's cursor. */
  position?: Record<string, unknown>;
}

type Item = Record<string, unknown>;
type SourceKind = 'keys' | 'slim' | 'dateRange';

/** Index sort keys that hold `<date>#<created sort>` rather than the created sort itself. */
const DATE_SORT_KEYS = new Set(['D1SK', 'D2SK']);
/** The sort key of every index in creation order (COLLECTION, LOOKUP, SLIM, the slots): compact since P235. */
const COLLECTION_SORT_KEY = 'GSI1SK';

/** A source's keys and projection: an index's, or the base table's (whose lookup items are keys only). */
function definitionOf(index: SourceIndex): Pick<IndexDefinition, 'partitionKey' | 'sortKey' | 'projection'> {
  if (index !== TABLE) return indexDefinition(index);
  return { partitionKey: tableDefinition.partitionKey, sortKey: tableDefinition.sortKey, projection: 'KEYS_ONLY' };
}

/** Which source a query reads, as a cursor records it: the index, or the lookup on the base table. */
export function sourceOf(query: CollectionQuery): string {
  return query.index === TABLE ? `${TABLE}#${query.lookup?.name ?? ''}` : query.index;
}

/**
 * A Query of a source; a lookup item is read as the entry of the record it names, as a slot's entry is, and
 * only the entries of `members` are kept (the Query's `LastEvaluatedKey` still says where it stopped).
 */
async function send(query: CollectionQuery, input: QueryCommandInput): Promise<QueryCommandOutput> {
  const [out, members] = await Promise.all([db().send(new QueryCommand(input)), query.members?.()]);
  if (members && out.Items) out.Items = out.Items.filter((entry) => members.has(String(entry.PK)));
  if (query.index !== TABLE || !out.Items) return out;
  const { lookup } = query;
  if (!lookup) throw new Error('a base-table source needs its lookup');
  const entry = (sort: string) => ({ ...lookup.itemKey(idOfCollectionSort(sort)), [COLLECTION_SORT_KEY]: sort });
  return { ...out, Items: out.Items.map((raw) => entry(String(raw[tableDefinition.sortKey]))) };
}

/** The kind of source a query reads (see above), from its index's projection and sort key. */
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
    if (c.op === 'in') return typeof value === 'string' && c.value.includes(value);
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
    keyCondition += query.sortKeyTo === undefined ? ' AND #sk >= :sk' : ' AND #sk BETWEEN :sk AND :to';
    if (query.sortKeyTo !== undefined) values[':to'] = query.sortKeyTo;
  }
  const filters: string[] = [];
  // Only an index that projects the filtered attributes (SLIM) can filter in the Query itself.
  if (definition.projection === 'INCLUDE') {
    query.conditions.forEach((condition, i) => {
      names[`#f${i}`] = condition.attr;
      if (condition.op === 'in') {
        condition.value.forEach((v, j) => (values[`:f${i}_${j}`] = v));
        filters.push(`#f${i} IN (${condition.value.map((_, j) => `:f${i}_${j}`).join(', ')})`);
        return;
      }
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

function positionOf(query: CollectionQuery, entry: Item): Record<string, unknown> {
  const index = definitionOf(query.index);
  const position: Record<string, unknown> = { index: sourceOf(query) };
  // A lookup's entry (or the record it names) holds its place in the partition as the collection sort.
  const sortKey = query.index === TABLE ? COLLECTION_SORT_KEY : index.sortKey;
  for (const name of [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, sortKey]) position[name] = entry[name];
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

/** Whole items for index entries, in the entries' order; an item deleted meanwhile is left out. */
async function itemsFor(entries: Item[]): Promise<(Item | undefined)[]> {
  if (!entries.length) return [];
  const found = await batchGetItems(entries.map((e) => ({ PK: String(e.PK), SK: String(e.SK) })));
  return entries.map((e) => found.get(primaryKeyOf(e as { PK: unknown; SK: unknown })));
}

/** How many entries of a source match: a counter where it knows, else counted as cheaply as the source allows. */
export async function countMatching(query: CollectionQuery, limit = Number.MAX_SAFE_INTEGER): Promise<number> {
  if (query.matches) return query.matches();
  if (query.total && !query.conditions.length && query.sortKeyFrom === undefined) return query.total();
  const kind = kindOf(query);
  if (kind === 'keys' && query.conditions.length) return (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER)).items.length;
  // SLIM counts with its FilterExpression; a keys-only range counts its keys (a Query costs what it reads).
  const input = baseInput(query);
  if (query.total && !query.conditions.length && query.sortKeyFrom !== undefined && limit === Number.MAX_SAFE_INTEGER)
    return countEitherSide(input, query.total);
  let count = 0;
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    // Bounded (a filter weighed against a smaller one): the Query stops once the limit is reached.
    const bound = limit - count < 10_000 ? { Limit: limit - count } : {};
    const out = await db().send(new QueryCommand({ ...input, ...bound, Select: 'COUNT', ExclusiveStartKey: exclusiveStartKey }));
    count += out.Count ?? 0;
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey && count < limit);
  return count;
}

/**
 * The keys of a range `>= bound` in a partition whose whole size a counter knows (P162): the range and its
 * complement (`< bound`) are counted side by side, a page of keys each, and whichever ends first answers
 * (the complement's count taken from the total). A broad date filter then reads the few keys before its
 * bound, a narrow one its few matches: at most twice the smaller side, never the whole partition unless the
 * bound splits it in the middle.
 */
async function countEitherSide(input: QueryCommandInput, total: () => Promise<number>): Promise<number> {
  const below: QueryCommandInput = { ...input, KeyConditionExpression: input.KeyConditionExpression!.replace('#sk >= :sk', '#sk < :sk') };
  const sides = [
    { input, count: 0, start: undefined as Record<string, unknown> | undefined, done: false },
    { input: below, count: 0, start: undefined as Record<string, unknown> | undefined, done: false },
  ];
  const all = total();
  // Steps of keys that double (100, 200, 400, …): the side that ends first has read at most about as many as the other.
  for (let limit = 100; ; limit = Math.min(limit * 2, 10_000)) {
    await Promise.all(
      sides.map(async (side) => {
        const out = await db().send(new QueryCommand({ ...side.input, Limit: limit, Select: 'COUNT', ExclusiveStartKey: side.start }));
        side.count += out.Count ?? 0;
        side.start = out.LastEvaluatedKey;
        side.done = !side.start;
      }),
    );
    if (sides[0].done) return sides[0].count;
    if (sides[1].done) return Math.max(0, (await all) - sides[1].count);
  }
}

/** Reads matching items after `from` until `wanted` are collected or the partition ends. */
async function collect(
  query: CollectionQuery,
  kind: SourceKind,
  from: Record<string, unknown> | undefined,
  wanted: number,
  /** False when only the position after the matches is wanted (a skip): a slim source then reads no items. */
  fetchItems = true,
): Promise<{ items: Item[]; position?: Record<string, unknown> }> {
  const input = baseInput(query);
  const residual = kind === 'keys' ? query.conditions : [];
  const filtered = Boolean(input.FilterExpression) || residual.length > 0 || query.members !== undefined;
  const items: Item[] = [];
  let exclusiveStartKey = from;
  // A walk of `members` reads keys only: where they are fewer than its share said (a run of others), further ahead.
  let further = 1;
  while (items.length < wanted) {
    const remaining = wanted - items.length;
    // Unfiltered, every entry read is returned, so the Limit is exact; filtered, read a little ahead.
    // Reading every match (a count), a Query reads its full 1 MB: calls, not units, would grow with a Limit.
    const limit = !filtered
      ? Math.min(remaining, 1000)
      : wanted === Number.MAX_SAFE_INTEGER
        ? undefined
        : query.readAhead
          ? Math.min(Math.ceil(remaining * query.readAhead * further) + 1, query.members ? 1000 : 200)
          : Math.min(Math.max(remaining * 2, 25), 200);
    const out = await send(query, { ...input, ...(limit ? { Limit: limit } : {}), ExclusiveStartKey: exclusiveStartKey });
    const entries = out.Items ?? [];
    // A walk of `members` alone returns every entry it keeps: only those the page still needs are read, and
    // the next Query starts after the last of them.
    const end = query.members && !residual.length ? Math.min(entries.length, remaining) : entries.length;
    if (query.members && entries.length < remaining / 2) further *= 2;
    // A keys-only or slim source reads whole items for what it returns (a slim one: only for its matches).
    const read =
      kind === 'keys' || (kind === 'slim' && fetchItems) ? await itemsFor(entries.slice(0, kind === 'slim' ? remaining : end)) : entries;
    for (let i = 0; i < end; i++) {
      const item = read[i];
      if (!item || (residual.length && !matchesAll(item, residual))) continue;
      items.push(item);
      if (items.length === wanted) return { items, position: positionOf(query, entries[i]) };
    }
    if (end < entries.length) exclusiveStartKey = startKey(query, positionOf(query, entries[end - 1]));
    else if (!out.LastEvaluatedKey) return { items };
    else exclusiveStartKey = out.LastEvaluatedKey;
  }
  return { items }; // wanted ≤ 0
}

/**
 * The entries of a partition (from `sortKeyFrom`) in its order, all of them or the first `limit`: a keys-only
 * one's keys, or a slim one's entries that match its conditions.
 */
export async function readKeys(query: CollectionQuery, limit = Infinity): Promise<Item[]> {
  const input = baseInput(query);
  const entries: Item[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    // Passing over non-members, a Query reads `readAhead` keys per one wanted.
    const ahead = query.members ? (query.readAhead ?? 1) : 1;
    const bound = limit < Infinity ? { Limit: Math.min(Math.ceil((limit - entries.length) * ahead), 10_000) } : {};
    const out = await send(query, { ...input, ...bound, ExclusiveStartKey: exclusiveStartKey });
    entries.push(...(out.Items ?? []));
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey && entries.length < limit);
  return entries;
}

/**
 * A key entry costs about a thirtieth of the item it names (~115 bytes against a 0.5-unit read): another
 * filter's keys are read to intersect while it holds fewer than this many times the entries left (P161).
 */
const KEY_INTERSECT_FACTOR = 20;
/** The most entries read per wanted match when a cursor says how many match. */
const MAX_READ_AHEAD = 4;

/**
 * The keys of a partition that also lie in the other filters' partitions, read as keys only: the smallest
 * other filters first, each while its keys cost less than reading the remaining entries' items. Returns the
 * entries in the partition's order and the conditions still to check on items.
 */
async function intersectKeys(query: CollectionQuery, pageSize: number, read: Item[]): Promise<{ entries: Item[]; residual: Condition[] }> {
  let entries = read;
  const residual = [...query.conditions];
  // Items of a page are read anyway: only the entries past a page are worth saving. A filter counted by its
  // keys is counted only as far as the threshold (past it, its keys are not read).
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

/** Skips `skip` matches without reading items where the source allows it; returns the position after them. */
async function skipTo(query: CollectionQuery, kind: SourceKind, skip: number): Promise<Record<string, unknown> | undefined> {
  if (!query.conditions.length && kind === 'keys') {
    // Keys only: a slot, or a collection on COLLECTION, compact since P235.
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
  const entries = (await readKeys(query)).sort((a, b) => (created(a) < created(b) ? 1 : created(a) > created(b) ? -1 : 0));
  const { conditions } = query;
  // Filtered, every entry's item is read to match it; unfiltered, only the page's items are read.
  const read = conditions.length ? await itemsFor(entries) : [];
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
  const items = conditions.length
    ? slice.map((o) => o.item!)
    : (await itemsFor(slice.map((o) => o.entry))).filter((i): i is Item => Boolean(i));
  const last = slice[slice.length - 1];
  return { items, count, position: last ? { index: sourceOf(query), after: created(last.entry) } : undefined };
}

/**
 * The page at `skip` of every match, read at once (their number is the count); `entries`: the page's items are
 * still to read.
 */
async function pageOf(
  query: CollectionQuery,
  all: Item[],
  skip: number,
  size: number,
  entries: boolean,
  extra = {},
): Promise<PageResult<Item>> {
  const page = all.slice(skip, skip + size);
  const items = entries ? (await itemsFor(page)).filter((i): i is Item => Boolean(i)) : page;
  const last = page[page.length - 1];
  return { items, count: all.length, position: last ? { ...positionOf(query, last), ...extra } : undefined };
}

/** One page of a source, with the count of its matches (from the cursor on later pages). */
export async function readPage(query: CollectionQuery, request: PageRequest): Promise<PageResult<Item>> {
  const kind = kindOf(query);
  // A cursor minted on another source (the counts chose differently since) is not used: the page is still right.
  if (request.cursor && request.cursor.position.index !== sourceOf(query)) request = { ...request, cursor: undefined };
  if (kind === 'dateRange') return readDateRange(query, request);
  const skip = (request.page - 1) * request.pageSize;
  if (kind === 'keys' && query.conditions.length && !request.cursor && !query.matches && query.keyFilters?.length) {
    // Other exact filters with slots of their own: count by intersecting keys, then read only what is left.
    const read = await readKeys(query);
    const { entries, residual } = await intersectKeys(query, request.pageSize, read);
    const matching = residual.length ? (await itemsFor(entries)).filter((i): i is Item => Boolean(i) && matchesAll(i!, residual)) : entries;
    // Later pages read the partition's items from the cursor, ahead by its share that matches.
    const ahead = String(Math.min(MAX_READ_AHEAD, Math.max(1, read.length / Math.max(matching.length, 1))));
    return pageOf(query, matching, skip, request.pageSize, !residual.length, { ahead });
  }
  // Counting a filtered keys partition or a slim scan reads every match (a slim one: its entry): the same
  // read serves the page.
  if (kind === 'keys' && query.conditions.length && !request.cursor && !query.matches)
    return pageOf(query, (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER)).items, skip, request.pageSize, false);
  if (kind === 'slim' && !request.cursor)
    return pageOf(query, (await collect(query, kind, undefined, Number.MAX_SAFE_INTEGER, false)).items, skip, request.pageSize, true);
  // A cursor of an intersected walk says how far ahead to read (P161).
  const ahead = Number(request.cursor?.position.ahead);
  if (kind === 'keys' && query.conditions.length && Number.isFinite(ahead) && ahead >= 1)
    query = { ...query, readAhead: Math.min(MAX_READ_AHEAD, ahead) };
  if (!request.cursor && skip === 0 && !query.conditions.length && !query.members) {
    // A first page with nothing to check on its entries reads exactly its Limit whatever the count: the count
    // and the page are read side by side (one round trip instead of two; a write in between can make the page
    // hold one more).
    const [count, page] = await Promise.all([countMatching(query), collect(query, kind, undefined, request.pageSize)]);
    return { items: page.items, count, position: page.position };
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
  // The count says how many the page can hold, so the read stops there instead of at the partition's end.
  const page = await collect(query, kind, from, Math.min(request.pageSize, count - skip));
  // A filtered keys walk that knows its share of matches passes it on, as an intersected one does (P161, P177).
  const share = kind === 'keys' && query.conditions.length && query.readAhead ? { ahead: String(query.readAhead) } : {};
  return { items: page.items, count, position: page.position ? { ...page.position, ...share } : undefined };
}
