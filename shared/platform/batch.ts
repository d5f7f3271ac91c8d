/**
 * Reads and writes that take more than one call: every page of a Query, and batch reads and writes with the
 * retries of unprocessed keys/items that DynamoDB asks callers to do.
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  QueryCommand,
  type QueryCommandInput,
} from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { partitionKeyOf, sortKeyOf } from '#platform/table.js';

const backoff = (attempt: number) => new Promise((r) => setTimeout(r, Math.min(50 * 2 ** attempt, 2000)));

/** The map key of an item's primary key in `batchGetItems`' result. */
export const primaryKeyOf = (key: { PK: unknown; SK: unknown }): string => `${String(key.PK)}\u0000${String(key.SK)}`;

/** Reads items by primary key in batches of 100, retrying unprocessed keys; returns them by `primaryKeyOf`. */
export async function batchGetItems(itemKeys: { PK: string; SK: string }[]): Promise<Map<string, Record<string, unknown>>> {
  const result = new Map<string, Record<string, unknown>>();
  const unique = [...new Map(itemKeys.map((k) => [primaryKeyOf(k), { PK: k.PK, SK: k.SK }])).values()];
  for (let i = 0; i < unique.length; i += 100) {
    let request: Record<string, { Keys: Record<string, unknown>[] }> | undefined = {
      [config().tableName]: { Keys: unique.slice(i, i + 100) },
    };
    for (let attempt = 0; request && Object.keys(request).length; attempt++) {
      if (attempt) await backoff(attempt);
      const out: BatchGetCommandOutput = await db().send(new BatchGetCommand({ RequestItems: request }));
      for (const item of out.Responses?.[config().tableName] ?? []) result.set(primaryKeyOf(item as { PK: unknown; SK: unknown }), item);
      request = out.UnprocessedKeys && Object.keys(out.UnprocessedKeys).length ? (out.UnprocessedKeys as typeof request) : undefined;
    }
  }
  return result;
}

/** Reads items by id in batches of 100, retrying unprocessed keys; returns them by id. */
export async function batchGetByKey<T extends { id: number }>(
  ids: number[],
  keyOf: (id: number) => { PK: string; SK: string },
  map: (item: Record<string, unknown>) => T,
): Promise<Map<number, T>> {
  const items = await batchGetItems([...new Set(ids)].map(keyOf));
  const result = new Map<number, T>();
  for (const item of items.values()) {
    const value = map(item);
    result.set(value.id, value);
  }
  return result;
}

/** Puts items in batches of 25, retrying unprocessed items. */
export async function batchPut(items: Record<string, unknown>[]): Promise<void> {
  await batchWrite(items.map((Item) => ({ PutRequest: { Item } })));
}

/** Deletes items by primary key in batches of 25, retrying unprocessed ones. */
export async function batchDelete(itemKeys: { PK: unknown; SK: unknown }[]): Promise<void> {
  await batchWrite(itemKeys.map(({ PK, SK }) => ({ DeleteRequest: { Key: { PK, SK } } })));
}

type WriteRequests = NonNullable<BatchWriteCommandInput['RequestItems']>[string];

async function batchWrite(requests: WriteRequests): Promise<void> {
  for (let i = 0; i < requests.length; i += 25) {
    let request: BatchWriteCommandInput['RequestItems'] | undefined = {
      [config().tableName]: requests.slice(i, i + 25),
    };
    for (let attempt = 0; request && Object.keys(request).length; attempt++) {
      if (attempt) await backoff(attempt);
      const out: BatchWriteCommandOutput = await db().send(new BatchWriteCommand({ RequestItems: request }));
      request = out.UnprocessedItems;
    }
  }
}

/** Every item of a Query, page after page. */
export async function queryAll(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const out = await db().send(new QueryCommand({ ...input, TableName: config().tableName, ExclusiveStartKey: exclusiveStartKey }));
    items.push(...(out.Items ?? []));
    exclusiveStartKey = out.LastEvaluatedKey;
  } while (exclusiveStartKey);
  return items;
}

/** The first item (or index entry) a Query finds, or undefined: one page of `Limit 1`. */
export async function firstQueried(input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey' | 'Limit'>) {
  const out = await db().send(new QueryCommand({ ...input, TableName: config().tableName, Limit: 1 }));
  return out.Items?.[0];
}

/** The items of `itemKeys` in their order, undefined for one gone meanwhile. */
export async function itemsAt(itemKeys: Record<string, unknown>[]): Promise<(Record<string, unknown> | undefined)[]> {
  const found = await batchGetItems(itemKeys.map((k) => ({ PK: String(k.PK), SK: String(k.SK) })));
  return itemKeys.map((k) => found.get(primaryKeyOf(k as { PK: unknown; SK: unknown })));
}

/** The items of `itemKeys` in their order; one gone meanwhile is left out. */
export async function itemsOf(itemKeys: Record<string, unknown>[]): Promise<Record<string, unknown>[]> {
  return (await itemsAt(itemKeys)).filter((item) => item !== undefined);
}

/** Every item a keys-only index partition names, in the index's order (its keys page after page, then the items). */
export async function queryItemsByKeys(
  input: Omit<QueryCommandInput, 'TableName' | 'ExclusiveStartKey'>,
): Promise<Record<string, unknown>[]> {
  return itemsOf(await queryAll(input));
}

/** The keys of the DUE index's `partition` that are due by `dueSortKey` (its sort key at or before it), every page. */
export async function dueKeys(partition: string, dueSortKey: string): Promise<Record<string, unknown>[]> {
  return queryAll({
    IndexName: 'DUE',
    KeyConditionExpression: '#pk = :pk AND #sk <= :due',
    ExpressionAttributeNames: { '#pk': partitionKeyOf('DUE'), '#sk': sortKeyOf('DUE') },
    ExpressionAttributeValues: { ':pk': partition, ':due': dueSortKey },
  });
}

/** Every item of a COLLECTION partition, in creation order (the index holds keys only, P234: the items are read by key). */
export async function collectionItems(partition: string): Promise<Record<string, unknown>[]> {
  return queryItemsByKeys({
    IndexName: 'COLLECTION',
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': partitionKeyOf('COLLECTION') },
    ExpressionAttributeValues: { ':pk': partition },
  });
}
