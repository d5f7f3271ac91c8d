/**
 * AWS's documented write-capacity formula for transactions, where DynamoDB Local's own figure is off (P188,
 * docs/access-patterns.md "Where DynamoDB Local's accounting differs from AWS"): in a TransactWriteItems it
 * counts actions of equal cost once and doubles index writes. The local runtime installs this accountant
 * (`setTransactionAccountant`), which reads each action's item before and after the transaction (with a
 * client of its own, outside the request's account) and prices the transaction as AWS documents it:
 * - the table: 2 write units per KB of each item written (the larger of its size before and after; a
 *   delete, its size before), and for a ConditionCheck DynamoDB Local's own 2 per 4 KB (AWS gives no figure);
 * - each global secondary index: 1 write unit per KB of the projected entry put, 1 per KB of an entry
 *   deleted, both when an update moves the entry's keys, and 1 when it changes a projected attribute only
 *   (index writes are not doubled in a transaction; AWS documents the 2× for the item's own write).
 * A write that races the transaction between these reads makes the figure approximate; tests don't race.
 */
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { quietClient, setTransactionAccountant } from '#platform/clients.js';
import { itemBytes } from '#platform/item-size.js';
import { tableDefinition, type IndexDefinition } from '#platform/table.js';

type Item = Record<string, unknown>;
type Action = { kind: 'Put' | 'Update' | 'Delete' | 'ConditionCheck'; tableName: string; key: Item };

const KB = 1024;
const units = (bytes: number, per: number) => Math.max(1, Math.ceil(bytes / per));
const keyNames = [tableDefinition.partitionKey, tableDefinition.sortKey] as const;

/** A key or item in the low-level form (`{ S: … }`) is brought to the document client's form. */
function native(value: Item): Item {
  const first = Object.values(value)[0];
  return first &&
    typeof first === 'object' &&
    !Array.isArray(first) &&
    Object.keys(first).length === 1 &&
    /^(S|N|B|BOOL|NULL|M|L|SS|NS|BS)$/.test(Object.keys(first)[0])
    ? unmarshall(value as Parameters<typeof unmarshall>[0])
    : value;
}

function actionsOf(input: Record<string, unknown>): Action[] {
  const items = (input.TransactItems ?? []) as Record<string, Record<string, unknown>>[];
  return items.flatMap((entry) => {
    const kind = (['Put', 'Update', 'Delete', 'ConditionCheck'] as const).find((k) => entry[k]);
    if (!kind) return [];
    const action = entry[kind];
    const key = kind === 'Put' ? native(action.Item as Item) : native(action.Key as Item);
    return [{ kind, tableName: String(action.TableName), key: Object.fromEntries(keyNames.map((k) => [k, key[k]])) }];
  });
}

const keyString = (tableName: string, key: Item) => JSON.stringify([tableName, key[keyNames[0]], key[keyNames[1]]]);

/** The entry an item has in an index (its projection), or undefined when it lacks the index's keys. */
function indexEntry(item: Item | undefined, index: IndexDefinition): Item | undefined {
  if (!item || typeof item[index.partitionKey] !== 'string' || typeof item[index.sortKey] !== 'string') return undefined;
  const names = [...keyNames, index.partitionKey, index.sortKey, ...('include' in index && index.include ? index.include : [])];
  return Object.fromEntries(names.filter((n) => item[n] !== undefined).map((n) => [n, item[n]]));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** One action's price by the formula: the table's units and each index's. */
export function actionCost(
  kind: Action['kind'],
  before: Item | undefined,
  after: Item | undefined,
): { table: number; indexes: Map<string, number> } {
  const indexes = new Map<string, number>();
  if (kind === 'ConditionCheck') return { table: 2 * units(itemBytes(before ?? {}), 4 * KB), indexes };
  const size = Math.max(before ? itemBytes(before) : 0, after ? itemBytes(after) : 0);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    const old = indexEntry(before, index);
    const next = indexEntry(after, index);
    let cost = 0;
    if (old && next) {
      const moved = old[index.partitionKey] !== next[index.partitionKey] || old[index.sortKey] !== next[index.sortKey];
      if (moved) cost = units(itemBytes(old), KB) + units(itemBytes(next), KB);
      else if (!same(old, next)) cost = units(itemBytes(next), KB);
    } else if (old) cost = units(itemBytes(old), KB);
    else if (next) cost = units(itemBytes(next), KB);
    if (cost) indexes.set(index.name, cost);
  }
  return { table: 2 * units(size, KB), indexes };
}

export function installTransactionFormula(endpoint: string): () => void {
  const reader = DynamoDBDocumentClient.from(
    quietClient(
      new DynamoDBClient({
        endpoint,
        region: process.env.AWS_REGION ?? 'us-east-1',
        credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      }),
    ),
  );
  async function read(actions: Action[]): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const byTable = new Map<string, Item[]>();
    const seen = new Set<string>();
    for (const a of actions) {
      if (seen.has(keyString(a.tableName, a.key))) continue;
      seen.add(keyString(a.tableName, a.key));
      byTable.set(a.tableName, [...(byTable.get(a.tableName) ?? []), a.key]);
    }
    for (const [tableName, keys] of byTable)
      for (let i = 0; i < keys.length; i += 100) {
        let request: Record<string, { Keys: Item[]; ConsistentRead: boolean }> | undefined = {
          [tableName]: { Keys: keys.slice(i, i + 100), ConsistentRead: true },
        };
        while (request && Object.keys(request).length) {
          const out = await reader.send(new BatchGetCommand({ RequestItems: request }));
          for (const item of out.Responses?.[tableName] ?? []) found.set(keyString(tableName, item), item);
          request = out.UnprocessedKeys as typeof request;
        }
      }
    return found;
  }
  setTransactionAccountant(async (input, send) => {
    const actions = actionsOf(input);
    if (!actions.length || input.ReturnConsumedCapacity === 'NONE') return send();
    const before = await read(actions);
    const result = await send();
    const after = await read(actions.filter((a) => a.kind !== 'ConditionCheck'));
    const perTable = new Map<string, { table: number; indexes: Map<string, number> }>();
    for (const action of actions) {
      const key = keyString(action.tableName, action.key);
      const cost = actionCost(action.kind, before.get(key), action.kind === 'ConditionCheck' ? undefined : after.get(key));
      const total = perTable.get(action.tableName) ?? { table: 0, indexes: new Map<string, number>() };
      total.table += cost.table;
      for (const [name, n] of cost.indexes) total.indexes.set(name, (total.indexes.get(name) ?? 0) + n);
      perTable.set(action.tableName, total);
    }
    (result.output as { ConsumedCapacity?: unknown }).ConsumedCapacity = [...perTable].map(([tableName, { table, indexes }]) => {
      const all = table + [...indexes.values()].reduce((sum, n) => sum + n, 0);
      return {
        TableName: tableName,
        CapacityUnits: all,
        WriteCapacityUnits: all,
        Table: { CapacityUnits: table, WriteCapacityUnits: table },
        GlobalSecondaryIndexes: Object.fromEntries([...indexes].map(([name, n]) => [name, { CapacityUnits: n, WriteCapacityUnits: n }])),
      };
    });
    return result;
  });
  return () => {
    setTransactionAccountant(undefined);
    reader.destroy();
  };
}
