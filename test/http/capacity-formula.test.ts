/**
 * Transactions are priced by AWS's documented formula, not by DynamoDB Local's own figure (P188): 2 write
 * units per KB of each item on the table, 1 per KB of each index entry written, deleted or moved (a move is
 * both). Non-transactional writes keep DynamoDB Local's figure, which agrees with the formula
 * (test/contract/store-semantics.test.ts).
 */
import { PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config, db, setTransactionAccountant } from '#platform/clients.js';
import { currentMetrics, withRequestMetrics } from '#platform/request-metrics.js';
import { actionCost, installTransactionFormula } from '../../local/capacity-formula.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let installed: (() => void) | undefined;
beforeAll(async () => {
  api = await startTestRuntime();
});
afterAll(async () => {
  installed?.();
  await api?.stop();
});

const measured = (fn: () => Promise<unknown>) =>
  withRequestMetrics(async () => {
    await fn();
    const { readUnits, writeUnits, calls } = currentMetrics()!;
    return { read: readUnits, write: writeUnits, calls };
  });

test('two small puts in a transaction cost 2 × 2 units on the table, where DynamoDB Local itself reports 2', async () => {
  const table = config().tableName;
  const cost = await measured(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          { Put: { TableName: table, Item: { PK: 'F#1', SK: 'A', n: 1 } } },
          { Put: { TableName: table, Item: { PK: 'F#2', SK: 'A', n: 1 } } },
        ],
      }),
    ),
  );
  expect(cost).toEqual({ read: 0, write: 4, calls: 1 });
  // DynamoDB Local's own figure, with the formula taken out for a moment: equal costs counted once.
  setTransactionAccountant(undefined);
  try {
    const raw = await measured(() =>
      db().send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table, Item: { PK: 'F#5', SK: 'A', n: 1 } } },
            { Put: { TableName: table, Item: { PK: 'F#6', SK: 'A', n: 1 } } },
          ],
        }),
      ),
    );
    expect(raw.write).toBe(2);
  } finally {
    installed = installTransactionFormula(process.env.AWS_ENDPOINT_URL_DYNAMODB!);
  }
});

test('index entries cost 1 a KB, not doubled: put, move (delete + put) and delete', async () => {
  const table = config().tableName;
  // GSI1PK with GSI1SK keys COLLECTION (ALL), SPK with GSI1SK keys SLIM (INCLUDE, P199): 2 entries.
  const put = await measured(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [{ Put: { TableName: table, Item: { PK: 'F#3', SK: 'A', GSI1PK: 'c', SPK: 'c', GSI1SK: '1' } } }],
      }),
    ),
  );
  expect(put.write).toBe(2 + 2);
  const move = await measured(() =>
    db().send(
      new TransactWriteCommand({
        TransactItems: [
          {
            Update: {
              TableName: table,
              Key: { PK: 'F#3', SK: 'A' },
              UpdateExpression: 'SET GSI1SK = :s',
              ExpressionAttributeValues: { ':s': '2' },
            },
          },
        ],
      }),
    ),
  );
  expect(move.write).toBe(2 + 2 * 2);
  const remove = await measured(() =>
    db().send(new TransactWriteCommand({ TransactItems: [{ Delete: { TableName: table, Key: { PK: 'F#3', SK: 'A' } } }] })),
  );
  expect(remove.write).toBe(2 + 2);
  // Outside a transaction the same put costs 1 on the table and the same on the indexes (DynamoDB Local's figure).
  const plain = await measured(() =>
    db().send(new PutCommand({ TableName: table, Item: { PK: 'F#4', SK: 'A', GSI1PK: 'c', SPK: 'c', GSI1SK: '1' } })),
  );
  expect(plain.write).toBe(1 + 2);
  const plainMove = await measured(() =>
    db().send(
      new UpdateCommand({
        TableName: table,
        Key: { PK: 'F#4', SK: 'A' },
        UpdateExpression: 'SET GSI1SK = :s',
        ExpressionAttributeValues: { ':s': '2' },
      }),
    ),
  );
  expect(plainMove.write).toBe(1 + 2 * 2);
});

test('the formula by size: the larger of before and after, per started KB', () => {
  const big = { PK: 'P', SK: 'S', text: 'x'.repeat(1500) };
  expect(actionCost('Put', undefined, big).table).toBe(4);
  expect(actionCost('Update', big, { PK: 'P', SK: 'S' }).table).toBe(4);
  expect(actionCost('Delete', big, undefined).table).toBe(4);
  // A projected attribute changed on an INCLUDE index (SLIM carries `status`), keys unchanged: 1 there; the
  // keys-only COLLECTION (P234) carries no `status`: 0.
  const before = { PK: 'P', SK: 'S', GSI1PK: 'c', SPK: 'c', GSI1SK: '1', status: 'open' };
  const after = { ...before, status: 'closed' };
  expect(Object.fromEntries(actionCost('Update', before, after).indexes)).toEqual({ SLIM: 1 });
  // An attribute no index projects: no index write.
  expect(Object.fromEntries(actionCost('Update', before, { ...before, note: 'x' }).indexes)).toEqual({});
  // A key it carries moved: 2 on each index it sorts (delete + put).
  expect(Object.fromEntries(actionCost('Update', before, { ...before, GSI1SK: '2' }).indexes)).toEqual({ COLLECTION: 2, SLIM: 2 });
  expect(actionCost('ConditionCheck', { PK: 'P', SK: 'S', text: 'x'.repeat(5000) }, undefined)).toEqual({ table: 4, indexes: new Map() });
});
