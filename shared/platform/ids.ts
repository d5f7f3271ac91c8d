import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { keys } from '#platform/keys.js';

/**
 * Integer ids (positive, below 2^53) from per-entity counters. A function instance reserves a block
 * with one atomic ADD and hands ids out of it, so a create rarely pays a counter round trip. Ids are
 * unique but only roughly ordered in time across instances; lists order by created_at, not by id.
 */
const BLOCK_SIZE = Number(process.env.ID_BLOCK_SIZE ?? 50);

const blocks = new Map<string, { next: number; end: number }>();
const pending = new Map<string, Promise<void>>();

export type Entity = 'partner' | 'company' | 'apikey' | 'job' | 'channel' | 'application' | 'webhook';

export async function nextId(entity: Entity): Promise<number> {
  for (;;) {
    const block = blocks.get(entity);
    if (block && block.next <= block.end) return block.next++;
    // One reservation in flight per entity; concurrent callers wait for it instead of reserving twice.
    let reservation = pending.get(entity);
    if (!reservation) {
      reservation = reserve(entity).finally(() => pending.delete(entity));
      pending.set(entity, reservation);
    }
    await reservation;
  }
}

async function reserve(entity: Entity): Promise<void> {
  const result = await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.idCounter(entity),
      UpdateExpression: 'ADD #value :block',
      ExpressionAttributeNames: { '#value': 'value' },
      ExpressionAttributeValues: { ':block': BLOCK_SIZE },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  const end = Number(result.Attributes?.value);
  blocks.set(entity, { next: end - BLOCK_SIZE + 1, end });
}

/** Drop reserved blocks (the local runtime does this when it switches data directories). */
export function forgetIdBlocks(): void {
  blocks.clear();
}
