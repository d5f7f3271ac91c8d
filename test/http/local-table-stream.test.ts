/**
 * `npm start` on an existing data directory brings the table's stream to the definition's view type (P240),
 * as a deployment replaces the stream on AWS: a table made with the NEW_IMAGE stream of P115 gets
 * NEW_AND_OLD_IMAGES, which the event relay needs to tell an item's new event from one already relayed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeTableCommand, UpdateTableCommand } from '@aws-sdk/client-dynamodb';
import { dynamoClient } from '#platform/clients.js';
import { tableDefinition } from '#platform/table.js';
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
