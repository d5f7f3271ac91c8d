/**
 * The application's later writes as named operations (issue 22, item 3): a status move with its event
 * sequence step, the sync-due index the sweeper reads, and retention's purge. Index attributes (the
 * updated-at sort key, the sync-status slot, the sync-due and personal-data indexes) are derived here from the
 * record, so the sync worker, the external-apply follow-up and retention name none
 * (`test/unit/architecture.test.ts` holds them to it).
 */
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { syncStatusIndex, updatedAtIndex, type ApplicationRecord } from '#applications/applications.js';
import { config, db } from '#platform/clients.js';
import { isConditionFailure } from '#platform/errors.js';
import { sequenceStep } from '#platform/events.js';
import { indexKeys, keys } from '#platform/keys.js';

type Identity = Pick<ApplicationRecord, 'id' | 'company' | 'created_at'>;

/** One move of a status field, `from` → `to`, as the previous event of the application left it. */
export interface StatusMove {
  field: 'sync_status' | 'email_sync_status' | 'external_apply_status';
  from: string;
  to: string;
  /** The new `updated_at`. */
  at: string;
  /** The application's `event_sequence` before the move (its event is `previous + 1`, P116). */
  previous: number;
  /** Plain fields set with it (`failure_error`, `external_id`, `external_apply_remind_at`). */
  also?: Readonly<Record<string, unknown>>;
  /** Nothing is due after this move: the application leaves the sync-due index in the same write. */
  leaveSyncDue?: boolean;
}

/**
 * The Update of a status move, for a transaction that puts its event beside it. It applies only while the
 * field still holds `from` and the sequence is `previous`, so of two racing moves one wins.
 */
export function statusMoveUpdate(record: Identity, move: StatusMove) {
  const step = sequenceStep(move.previous);
  const names: Record<string, string> = { '#field': move.field };
  const values: Record<string, unknown> = {
    ':to': move.to,
    ':from': move.from,
    ':at': move.at,
    ':updated': updatedAtIndex(record, move.at).D2SK,
    ...step.values,
  };
  const set = ['#field = :to', 'updated_at = :at', 'D2SK = :updated', 'event_sequence = :sequence'];
  Object.entries(move.also ?? {}).forEach(([field, value], i) => {
    names[`#also${i}`] = field;
    values[`:also${i}`] = value;
    set.push(`#also${i} = :also${i}`);
  });
  if (move.field === 'sync_status') {
    const slot = syncStatusIndex(record, move.to);
    names['#slot'] = slot.attribute;
    values[':slot'] = slot.value;
    set.push('#slot = :slot');
  }
  return {
    TableName: config().tableName,
    Key: keys.application(record.id),
    UpdateExpression: `SET ${set.join(', ')}${move.leaveSyncDue ? ' REMOVE sync_due_at, GSI5PK, GSI5SK' : ''}`,
    ConditionExpression: `#field = :from AND ${step.condition}`,
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
}

/** When the sweeper should look at the application again; nothing when it has left the sync-due index. */
export async function setSyncDue(id: number, due: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.application(id),
        UpdateExpression: 'SET sync_due_at = :due, GSI5SK = :sort',
        ConditionExpression: 'attribute_exists(GSI5PK)',
        ExpressionAttributeValues: { ':due': due, ':sort': indexKeys.createdSort(due, id) },
      }),
    )
    .catch((error: unknown) => {
      if (!isConditionFailure(error)) throw error;
    });
}

/** Nothing more is due: the application leaves the sync-due index. */
export async function leaveSyncDue(id: number): Promise<void> {
  await db().send(
    new UpdateCommand({ TableName: config().tableName, Key: keys.application(id), UpdateExpression: 'REMOVE sync_due_at, GSI5PK, GSI5SK' }),
  );
}

/** Ids of one sync-due shard whose time has come (`before`: now), oldest first. */
export async function syncDueIds(shard: number, before: string, limit: number): Promise<number[]> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'GSI5',
      KeyConditionExpression: 'GSI5PK = :pk AND GSI5SK < :now',
      ExpressionAttributeValues: { ':pk': `SYNCDUE#${shard}`, ':now': before },
      Limit: limit,
    }),
  );
  return (out.Items ?? []).map((item) => Number(String(item.PK).split('#')[1]));
}

/** Ids of one personal-data shard created before `createdBefore` (D10), oldest first. */
export async function personalDataDueIds(shard: number, createdBefore: string, limit: number): Promise<{ ids: number[]; more: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'GSI4',
      KeyConditionExpression: 'GSI4PK = :pk AND GSI4SK < :before',
      ExpressionAttributeValues: { ':pk': `PII#${shard}`, ':before': indexKeys.createdSort(createdBefore, 0) },
      Limit: limit,
    }),
  );
  const ids = (out.Items ?? []).map((item) => Number(String(item.PK).split('#')[1]));
  return { ids, more: Boolean(out.LastEvaluatedKey) };
}

/**
 * Retention's purge (D10): removes the personal data fields and the indexes that served them (e-mail,
 * personal data), sets `status: anonymized`; only once (a record that no longer holds data is left alone).
 */
export async function clearPersonalData(record: Identity, fields: readonly string[], at: string): Promise<void> {
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.application(record.id),
        UpdateExpression: `REMOVE ${fields.map((f) => `#${f}`).join(', ')}, email_lc, GSI2PK, GSI4PK, GSI4SK SET #status = :anonymized, personal_data_deleted_at = :at, updated_at = :at, D2SK = :updated`,
        ConditionExpression: 'attribute_exists(GSI4PK)',
        ExpressionAttributeNames: { ...Object.fromEntries(fields.map((f) => [`#${f}`, f])), '#status': 'status' },
        ExpressionAttributeValues: { ':anonymized': 'anonymized', ':at': at, ':updated': updatedAtIndex(record, at).D2SK },
      }),
    );
  } catch (error) {
    if (!isConditionFailure(error)) throw error;
  }
}
