/**
 * `npm start` on an existing data directory brings the table's stream to the definition's view type (P240),
 * as a deployment replaces the stream on AWS: a table made with the NEW_IMAGE stream of P115 gets
 * NEW_AND_OLD_IMAGES, which the event relay needs to tell an item's new event from one already relayed.
 *
 * DynamoDB Local on a database file gets an index on its stream records (P364), which its own queries use, and
 * which changes no answer: a table's stream holds its own records only, after other tables' and a deleted one's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import {
  CreateTableCommand,
  DeleteTableCommand,
  DescribeTableCommand,
  DynamoDBClient,
  PutItemCommand,
  UpdateTableCommand,
} from '@aws-sdk/client-dynamodb';
import { DescribeStreamCommand, DynamoDBStreamsClient, GetRecordsCommand, GetShardIteratorCommand } from '@aws-sdk/client-dynamodb-streams';
import { dynamoClient } from '#platform/clients.js';
import { tableDefinition } from '#platform/table.js';
import { startDynamoDbLocal } from '../../local/dynamodb-local.js';
import { startEmulators } from '../../local/emulators.js';

const dir = mkdtempSync(join(tmpdir(), 'his-stream-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const stream = async (table: string) => (await dynamoClient().send(new DescribeTableCommand({ TableName: table }))).Table!;

test('a table whose stream has another view type gets a new stream of the wanted one', async () => {
  const first = await startEmulators(dir);
  const table = first.env.TABLE_NAME;
  // As P115 made it: NEW_IMAGE.
  await dynamoClient().send(new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: false } }));
  await dynamoClient().send(
    new UpdateTableCommand({ TableName: table, StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_IMAGE' } }),
  );
  const before = await stream(table);
  expect(before.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_IMAGE' });
  await first.stop();

  const second = await startEmulators(dir, { dropTable: true });
  try {
    expect(second.fresh).toBe(false);
    const after = await stream(table);
    expect(tableDefinition.streamViewType).toBe('NEW_AND_OLD_IMAGES');
    expect(after.StreamSpecification).toEqual({ StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' });
    expect(after.LatestStreamArn).not.toBe(before.LatestStreamArn);
  } finally {
    await second.stop();
  }
});

test('stream records are indexed on a database file (P364): DynamoDB Local seeks them, and every stream still holds only its own', async () => {
  const dbPath = mkdtempSync(join(dir, 'db-'));
  const local = await startDynamoDbLocal({ dbPath });
  const options = { endpoint: local.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
  const db = new DynamoDBClient(options);
  const streams = new DynamoDBStreamsClient(options);
  try {
    expect(local.streamIndexed).toBe(true);
    const sqlite = new DatabaseSync(join(dbPath, 'shared-local-instance.db'), { readOnly: true });
    // The query DynamoDB Local runs on every write to a table with a stream and on every DescribeStream.
    const plan = sqlite.prepare('EXPLAIN QUERY PLAN SELECT MIN(SequenceNumber) FROM us WHERE StreamID = ?').all('x');
    sqlite.close();
    expect(plan.map((row) => String(row.detail)).join('\n')).toMatch(/USING COVERING INDEX his_us_stream/);

    const table = async (name: string) =>
      (
        await db.send(
          new CreateTableCommand({
            TableName: name,
            AttributeDefinitions: [{ AttributeName: 'PK', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'PK', KeyType: 'HASH' }],
            BillingMode: 'PAY_PER_REQUEST',
            StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
          }),
        )
      ).TableDescription!.LatestStreamArn!;
    const put = (name: string, count: number, round = 1) =>
      Promise.all(
        Array.from({ length: count }, (_, i) =>
          db.send(new PutItemCommand({ TableName: name, Item: { PK: { S: `${name}-${i}` }, round: { N: String(round) } } })),
        ),
      );
    const keys = async (arn: string) => {
      const shards = (await streams.send(new DescribeStreamCommand({ StreamArn: arn }))).StreamDescription!.Shards!;
      const out: string[] = [];
      for (const shard of shards) {
        const { ShardIterator } = await streams.send(
          new GetShardIteratorCommand({ StreamArn: arn, ShardId: shard.ShardId!, ShardIteratorType: 'TRIM_HORIZON' }),
        );
        const { Records } = await streams.send(new GetRecordsCommand({ ShardIterator }));
        out.push(...(Records ?? []).map((r) => r.dynamodb!.Keys!.PK.S!));
      }
      return out.sort();
    };
    const gone = await table('gone');
    await put('gone', 5);
    await db.send(new DeleteTableCommand({ TableName: 'gone' }));
    const first = await table('first');
    const second = await table('second');
    await put('first', 3);
    await put('second', 4);
    await put('first', 3, 2);
    expect(await keys(first)).toEqual(['first-0', 'first-0', 'first-1', 'first-1', 'first-2', 'first-2']);
    expect(await keys(second)).toEqual(['second-0', 'second-1', 'second-2', 'second-3']);
    // A deleted table's stream stays readable (24 hours on AWS), with its own records.
    expect(await keys(gone)).toEqual(['gone-0', 'gone-1', 'gone-2', 'gone-3', 'gone-4']);
  } finally {
    db.destroy();
    streams.destroy();
    await local.stop();
  }
});
