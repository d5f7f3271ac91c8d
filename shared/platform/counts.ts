/** Counter items hold a collection's total (`count`) and per-value filter totals, so lists need not count records. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { keys, type Key } from '#platform/keys.js';
import { batchGetItems, primaryKeyOf } from '#platform/batch.js';

export async function readCount(collection: string): Promise<number> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.countOf(collection) }));
  return Number(out.Item?.count ?? 0);
}

/**
 * Counter items read together, once, on first use: a list that weighs several filters reads all their
 * counters in one BatchGet. `attribute` names a per-value total kept on a collection's counter item.
 */
export function counterReader(
  counterKeys: Key[],
): ((key: Key, attribute?: string) => Promise<number>) & { item(key: Key): Promise<Record<string, unknown> | undefined> } {
  let items: Promise<Map<string, Record<string, unknown>>> | undefined;
  // One counter (the usual unfiltered or single-filter list): a GetItem, lighter than a BatchGet of one.
  const load = () => (items ??= counterKeys.length === 1 ? getOne(counterKeys[0]) : batchGetItems(counterKeys));
  const read = async (key: Key, attribute = 'count') => Number((await load()).get(primaryKeyOf(key))?.[attribute] ?? 0);
  // The whole counter item (from the same read), for callers that enumerate its attributes.
  return Object.assign(read, { item: async (key: Key) => (await load()).get(primaryKeyOf(key)) });
}

async function getOne(key: Key): Promise<Map<string, Record<string, unknown>>> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: key }));
  return new Map(out.Item ? [[primaryKeyOf(key), out.Item]] : []);
}

/** The Update input that adds each amount to its attribute of one counter item (`ADD`, so absent ones start at 0). */
export function counterAdd(key: Key, amounts: ReadonlyMap<string, number>) {
  const names = [...amounts.keys()];
  return {
    TableName: config().tableName,
    Key: key,
    UpdateExpression: `ADD ${names.map((_, i) => `#a${i} :a${i}`).join(', ')}`,
    ExpressionAttributeNames: Object.fromEntries(names.map((name, i) => [`#a${i}`, name])),
    ExpressionAttributeValues: Object.fromEntries(names.map((name, i) => [`:a${i}`, amounts.get(name)])),
  };
}
