/**
 * Reads and writes that take more than one call: every page of a Query, batch reads and writes with the
 * retries of unprocessed keys/items that DynamoDB asks callers to do, and writes grouped in transactions
 * within DynamoDB's limits (`transactionChunks`: the job import's, P185).
 */
import {
  BatchGetCommand,
  type BatchGetCommandOutput,
  BatchWriteCommand,
  type BatchWriteCommandInput,
  type BatchWriteCommandOutput,
  QueryCommand,
  type QueryCommandInput,
  type TransactWriteCommand,
} from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { partitionKeyOf, sortKeyOf } from '#platform/table.js';
import { itemBytes } from '#platform/item-size.js';

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

/** One action of a TransactWriteItems. */
export type TransactItem = NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>[number];

/**
 * DynamoDB's limits on one TransactWriteItems: 100 actions, and 4 MB (4,194,304 bytes) for the aggregate
 * size of its items ("Transaction payload size cannot exceed 4MB"; an item itself is at most 400 KB, 409,600
 * bytes). An import run fills its transactions up to 100 actions and `TRANSACTION_BUDGET_BYTES` by
 * `actionBytes` (P185): 3.5 MiB, an eighth below the limit. Against DynamoDB Local the estimate is its count
 * to the byte for puts (items and condition expressions) and a few bytes above it for updates; the margin is
 * for AWS, whose documentation calls its sizes approximate. At most 400 KB an item, a transaction under the
 * budget still takes 8 jobs of the largest size.
 */
export const TRANSACTION_MAX_ACTIONS = 100;
export const TRANSACTION_BUDGET_BYTES = 3.5 * 1024 * 1024;

/** What one action adds to a transaction's size: a put its item; any other its key, expressions and values. */
export function actionBytes(action: TransactItem): number {
  const { Put, Update, Delete, ConditionCheck } = action;
  if (Put) return itemBytes(Put.Item ?? {}) + Buffer.byteLength(Put.ConditionExpression ?? '');
  const other = Update ?? Delete ?? ConditionCheck;
  if (!other) return 0;
  const expressions = [Update?.UpdateExpression, other.ConditionExpression, ...Object.entries(other.ExpressionAttributeNames ?? {}).flat()];
  return (
    itemBytes(other.Key ?? {}) +
    expressions.reduce<number>((sum, text) => sum + Buffer.byteLength(text ?? ''), 0) +
    itemBytes(other.ExpressionAttributeValues ?? {})
  );
}

/**
 * Groups `items` in order into transactions within DynamoDB's limits: each item's actions (`actionsOf`,
 * which must commit together) stay in one transaction, and `reserve` is what every transaction holds
 * besides, at its largest (the import's counter update as if for 100 jobs). The actions of an item are made
 * only when the item comes up, so a caller that writes each group before taking the next makes them just
 * before its write.
 * An item whose actions alone exceed the budget goes alone (DynamoDB then refuses what is over its limits).
 */
export function* transactionChunks<T>(
  items: Iterable<T>,
  actionsOf: (item: T) => TransactItem[],
  reserve: TransactItem[] = [],
): Generator<{ items: T[]; actions: TransactItem[] }> {
  const reserveActions = reserve.length;
  const reserveBytes = reserve.reduce((sum, action) => sum + actionBytes(action), 0);
  let chunk: { items: T[]; actions: TransactItem[] } = { items: [], actions: [] };
  let bytes = reserveBytes;
  for (const item of items) {
    const actions = actionsOf(item);
    const size = actions.reduce((sum, action) => sum + actionBytes(action), 0);
    const fits =
      reserveActions + chunk.actions.length + actions.length <= TRANSACTION_MAX_ACTIONS && bytes + size <= TRANSACTION_BUDGET_BYTES;
    if (chunk.items.length && !fits) {
      yield chunk;
      chunk = { items: [], actions: [] };
      bytes = reserveBytes;
    }
    chunk.items.push(item);
    chunk.actions.push(...actions);
    bytes += size;
  }
  if (chunk.items.length) yield chunk;
}
