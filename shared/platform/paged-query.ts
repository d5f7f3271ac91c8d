/**
 * Reads one page of a collection that lives under one index partition (a company's jobs, a partner's
 * companies, ...), newest first, with optional filters. Counting, skipping and reading are separate so a
 * request pays only for what it needs: the unfiltered total comes from a counter item, a cursor skips the
 * skip, and a page is read with a Limit that matches the page when there is no filter.
 */
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { tableDefinition, type IndexName } from '#platform/table.js';
import type { PageRequest } from '#platform/pagination.js';
import { BadRequestError } from '#platform/errors.js';

export type Condition =
  | { attr: string; op: 'eq'; value: string | number | boolean }
  | { attr: string; op: 'contains'; value: string }
  | { attr: string; op: 'gte'; value: string };

export interface CollectionQuery {
  index: IndexName;
  partitionValue: string;
  /** Lower bound on the index sort key (a date filter served by the key condition). */
  sortKeyFrom?: string;
  conditions: Condition[];
  /** Unfiltered total from a counter item, where the collection has one; used when nothing filters. */
  total?: () => Promise<number>;
}

export interface PageResult<T> {
  items: T[];
  count: number;
  /** Position of the last item of the page, for the next page's cursor. */
  position?: Record<string, unknown>;
}

function indexOf(name: IndexName) {
  const index = tableDefinition.globalSecondaryIndexes.find((i) => i.name === name);
  if (!index) throw new Error(`unknown index ${name}`);
  return index;
}

function baseInput(query: CollectionQuery): QueryCommandInput {
  const index = indexOf(query.index);
  const names: Record<string, string> = { '#pk': index.partitionKey };
  const values: Record<string, unknown> = { ':pk': query.partitionValue };
  let keyCondition = '#pk = :pk';
  if (query.sortKeyFrom !== undefined) {
    names['#sk'] = index.sortKey;
    values[':sk'] = query.sortKeyFrom;
    keyCondition += ' AND #sk >= :sk';
  }
  const filters: string[] = [];
  query.conditions.forEach((condition, i) => {
    names[`#f${i}`] = condition.attr;
    values[`:f${i}`] = condition.value;
    if (condition.op === 'eq') filters.push(`#f${i} = :f${i}`);
    else if (condition.op === 'gte') filters.push(`#f${i} >= :f${i}`);
    else filters.push(`contains(#f${i}, :f${i})`);
  });
  return {
    TableName: config().tableName,
    IndexName: query.index,
    KeyConditionExpression: keyCondition,
    ...(filters.length ? { FilterExpression: filters.join(' AND ') } : {}),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
    ScanIndexForward: false,
  };
}

function positionOf(query: CollectionQuery, item: Record<string, unknown>): Record<string, unknown> {
  const index = indexOf(query.index);
  const position: Record<string, unknown> = {};
  for (const name of [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey])
    position[name] = item[name];
  return position;
}

/** The start key for a position, with the partition forced to this query's own (tenant) partition. */
function startKey(query: CollectionQuery, position: Record<string, unknown>): Record<string, unknown> {
  const index = indexOf(query.index);
  const key: Record<string, unknown> = {};
  for (const name of [tableDefinition.partitionKey, tableDefinition.sortKey, index.sortKey]) {
    // Only cursors we minted get here, but a position that does not fit this index is still the client's error.
    if (typeof position[name] !== 'string' || position[name] === '')
      throw new BadRequestError('The "cursor" parameter is not valid; follow the "next" link as given.', 'invalid_cursor');
    key[name] = position[name];
  }
  key[index.partitionKey] = query.partitionValue;
  return key;
}

async function countMatching(query: CollectionQuery): Promise<number> {
  if (query.total && !query.conditions.length && query.sortKeyFrom === undefined) return query.total();
  let count = 0;
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...baseInput(query), Select: 'COUNT', ExclusiveStartKey: exclusiveStartKey }));
    count += out.Count ?? 0;
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return count;
}

/** Reads matching items after `from` until `wanted` are collected or the collection ends. */
async function collect(
  query: CollectionQuery,
  from: Record<string, unknown> | undefined,
  wanted: number,
  keysOnly: boolean,
): Promise<{ items: Record<string, unknown>[]; position?: Record<string, unknown> }> {
  const input = baseInput(query);
  const filtered = Boolean(input.FilterExpression);
  if (keysOnly) {
    const index = indexOf(query.index);
    const keyNames = [tableDefinition.partitionKey, tableDefinition.sortKey, index.partitionKey, index.sortKey];
    keyNames.forEach((name, i) => (input.ExpressionAttributeNames![`#k${i}`] = name));
    input.ProjectionExpression = keyNames.map((_, i) => `#k${i}`).join(', ');
  }
  const items: Record<string, unknown>[] = [];
  let exclusiveStartKey = from;
  while (items.length < wanted) {
    const remaining = wanted - items.length;
    // Without a filter every evaluated item is returned, so the Limit can be exact; with one, read ahead.
    const limit = filtered ? Math.min(Math.max(remaining * 4, 50), 500) : remaining;
    const out = await db().send(new QueryCommand({ ...input, Limit: limit, ExclusiveStartKey: exclusiveStartKey }));
    for (const item of out.Items ?? []) {
      items.push(item);
      if (items.length === wanted) return { items, position: positionOf(query, item) };
    }
    if (!out.LastEvaluatedKey) return { items };
    exclusiveStartKey = out.LastEvaluatedKey;
  }
  return { items, position: items.length ? positionOf(query, items[items.length - 1]) : undefined };
}

export async function readPage(query: CollectionQuery, request: PageRequest): Promise<PageResult<Record<string, unknown>>> {
  const count = request.cursor ? request.cursor.count : await countMatching(query);
  const skip = (request.page - 1) * request.pageSize;
  if (skip >= count) return { items: [], count };
  let from: Record<string, unknown> | undefined;
  if (request.cursor) {
    from = startKey(query, request.cursor.position);
  } else if (skip > 0) {
    const skipped = await collect(query, undefined, skip, true);
    if (skipped.items.length < skip || !skipped.position) return { items: [], count };
    from = startKey(query, skipped.position);
  }
  const page = await collect(query, from, request.pageSize, false);
  return { items: page.items, count, position: page.position };
}
