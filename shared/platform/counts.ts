/** Counter items hold the unfiltered totals of collections; they change in the create/delete transaction. */
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { keys } from '#platform/keys.js';

export async function readCount(collection: string): Promise<number> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.countOf(collection) }));
  return Number(out.Item?.count ?? 0);
}
