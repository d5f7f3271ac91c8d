/**
 * The yardstick "reading every member of a collection once" of list-capacity and bench:scale: the cheapest way
 * the table allows, since COLLECTION holds keys only (P234). A company's jobs share a base-table partition and are read
 * by one Query of it; applications and companies (each in a partition of its own) are read by key, 0.5 units per
 * 4 KB of each item, their keys taken from COLLECTION.
 */
import { BatchGetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { partitionKeyOf } from '#platform/table.js';

export async function unitsToReadOnce(partition: string): Promise<number> {
  let units = 0;
  const jobs = /^COMPANY#(\d+)#JOBS$/.exec(partition);
  const keys: Record<string, unknown>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const out = await db().send(
      new QueryCommand({
        TableName: config().tableName,
        ...(jobs
          ? {
              KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)',
              ExpressionAttributeValues: { ':pk': `COMPANY#${jobs[1]}`, ':job': 'JOB#' },
            }
          : {
              IndexName: 'COLLECTION',
              KeyConditionExpression: '#pk = :pk',
              ExpressionAttributeNames: { '#pk': partitionKeyOf('COLLECTION') },
              ExpressionAttributeValues: { ':pk': partition },
            }),
        ExclusiveStartKey: start,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    );
    if (jobs) units += out.ConsumedCapacity?.CapacityUnits ?? 0;
    else keys.push(...(out.Items ?? []).map((item) => ({ PK: item.PK, SK: item.SK })));
    start = out.LastEvaluatedKey;
  } while (start);
  for (let i = 0; i < keys.length; i += 100) {
    const out = await db().send(
      new BatchGetCommand({ RequestItems: { [config().tableName]: { Keys: keys.slice(i, i + 100) } }, ReturnConsumedCapacity: 'TOTAL' }),
    );
    if (Object.keys(out.UnprocessedKeys ?? {}).length) throw new Error('unprocessed keys while measuring');
    units += (out.ConsumedCapacity ?? []).reduce((sum, c) => sum + (c.CapacityUnits ?? 0), 0);
  }
  return units;
}
