/**
 * @entity-store: one of the modules that may name index attributes (test/unit/architecture.test.ts).
 * Outcomes read back from the ATS (D21, issue 43; P298–P299): the outcome watch of an application and the
 * write that records a changed outcome on the application item.
 *
 * The watch is a small item beside the application (`keys.outcomeWatch`), written once when the ATS accepted
 * the application and deleted when a final outcome was recorded. Its DUE entry (`OUTCOMEWATCH#<shard>`, sorted
 * by `applied_at`, declared by `OUTCOME_WATCH_ENTITY`, P321) is what the reading pass queries: the ranges of
 * `applied_at` due at the pass (P320), never a scan. A reading that finds nothing new writes nothing, so the
 * entry is never moved; a watch past the window is no longer read (its TTL removes it later).
 */
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { moveEventAttribute } from '#applications/application-events.js';
import { APPLICATION_ENTITY } from '#applications/application-store.js';
import { defineEntity, updateExpression } from '#platform/entities.js';
import { partitionKeyOf, sortKeyOf } from '#platform/table.js';
import type { ApplicationRecord } from '#applications/applications.js';
import { batchGetItems, firstQueried, primaryKeyOf, queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isConditionFailure } from '#platform/errors.js';
import { ITEM_EVENT_ATTRIBUTE, sequenceStep } from '#platform/events.js';
import { OUTCOME_WATCH_SHARDS, expiringAt, indexKeys, keys } from '#platform/keys.js';

/** A positive number from a setting, else the default. */
export const positiveSetting = (value: string | undefined, fallback: number) => {
  const n = Number(value);
  return value !== undefined && value !== '' && Number.isFinite(n) && n > 0 ? n : fallback;
};
/** How long after `applied_at` an application's outcome is read (days): `OUTCOME_TRACK_DAYS`, default 90. */
export const outcomeTrackDays = () => positiveSetting(process.env.OUTCOME_TRACK_DAYS, 90);

/** What a reading needs besides the application: how the ATS knows it (the submission's reference and job). */
export interface OutcomeWatch {
  id: number;
  reference: string;
  job_external_id: string;
}

/**
 * The outcome watch's entity (P298, P321): its one index entry, in DUE, is built from the application's id (the
 * shard, `OUTCOMEWATCH#<id % 4>`) and `applied_at` (the sort, `<applied_at>#<id>`), declared here once so that no
 * index attribute is written by hand. The reading pass queries it by ranges of `applied_at` (P320).
 */
export const OUTCOME_WATCH_ENTITY = defineEntity<OutcomeWatch & { applied_at: string }>({
  entity: 'outcome watch',
  indexes: [
    {
      pattern: 'outcome watches by applied_at',
      index: 'DUE',
      pk: { fields: ['id'], build: (w) => indexKeys.outcomeWatch(w.id) },
      sk: { fields: ['applied_at', 'id'], build: (w) => indexKeys.createdSort(w.applied_at, w.id) },
    },
  ],
});

/**
 * Starts reading the application's outcome (P298): the watch item with its DUE entry, 1 write unit and 1 for
 * the index. Idempotent (a retried sync puts the same item). It expires a week after the tracking window.
 */
export async function watchOutcome(
  record: Pick<ApplicationRecord, 'id' | 'applied_at'>,
  watch: Omit<OutcomeWatch, 'id'>,
  trackDays: number,
) {
  const expires = Math.floor(Date.parse(record.applied_at) / 1000) + (trackDays + 7) * 86_400;
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: {
        ...keys.outcomeWatch(record.id),
        ...OUTCOME_WATCH_ENTITY.item({ id: record.id, applied_at: record.applied_at, ...watch }),
        reference: watch.reference,
        job_external_id: watch.job_external_id,
        ...expiringAt(expires),
      },
    }),
  );
}

/** Reading stops: the watch goes (a final outcome, a company whose ATS no longer reads, an application gone). */
export async function stopWatchingOutcome(id: number): Promise<void> {
  await db().send(new DeleteCommand({ TableName: config().tableName, Key: keys.outcomeWatch(id) }));
}

const DUE_NAMES = { '#pk': partitionKeyOf('DUE'), '#sk': sortKeyOf('DUE') };

/** The ids of the watches of one shard whose application was applied in `window` (keys only, oldest first; P320). */
export async function watchedOutcomeIds(shard: number, window: { from: string; to?: string }): Promise<number[]> {
  const entries = await queryAll({
    IndexName: 'DUE',
    KeyConditionExpression: window.to ? '#pk = :pk AND #sk BETWEEN :from AND :to' : '#pk = :pk AND #sk >= :from',
    ExpressionAttributeNames: DUE_NAMES,
    ExpressionAttributeValues: {
      ':pk': indexKeys.outcomeWatchShard(shard),
      ':from': window.from,
      ...(window.to ? { ':to': window.to } : {}),
    },
  });
  return entries.map((entry) => Number(String(entry.PK).split('#')[1]));
}

/** The `applied_at` of the oldest watch of one shard applied after `appliedAfter` (one key read, 0.5 units; P320). */
export async function oldestWatched(shard: number, appliedAfter: string): Promise<string | undefined> {
  const entry = await firstQueried({
    IndexName: 'DUE',
    KeyConditionExpression: '#pk = :pk AND #sk > :after',
    ExpressionAttributeNames: DUE_NAMES,
    ExpressionAttributeValues: { ':pk': indexKeys.outcomeWatchShard(shard), ':after': appliedAfter },
  });
  const sort = entry?.[sortKeyOf('DUE')];
  return sort === undefined ? undefined : String(sort).slice(0, String(sort).lastIndexOf('#'));
}

export const outcomeWatchShards = () => Array.from({ length: OUTCOME_WATCH_SHARDS }, (_, shard) => shard);

/** The applications of `ids` with their watches: one batch read of both (a watch whose application is gone has none). */
export async function watchedApplications(ids: number[]): Promise<{ watch: OutcomeWatch; record?: ApplicationRecord }[]> {
  const items = await batchGetItems(ids.flatMap((id) => [keys.application(id), keys.outcomeWatch(id)]));
  const found: { watch: OutcomeWatch; record?: ApplicationRecord }[] = [];
  for (const id of ids) {
    const watch = items.get(primaryKeyOf(keys.outcomeWatch(id)));
    if (!watch) continue; // stopped meanwhile
    const application = items.get(primaryKeyOf(keys.application(id)));
    found.push({
      watch: { id, reference: String(watch.reference), job_external_id: String(watch.job_external_id) },
      ...(application ? { record: application as unknown as ApplicationRecord } : {}),
    });
  }
  return found;
}

/**
 * Records a reading that differs from what the application holds (P299): `outcome`, `outcome_stage`,
 * `outcome_updated_at` and `updated_at` in one conditional write, applied only while the application still
 * holds the outcome and stage this reading was compared with, so a change is recorded once and in order. When
 * the outcome itself moved, the write carries the item-borne event `application.outcome_changed` (P240: the
 * relay publishes it to SNS and the partner webhooks) with the application's next event sequence. False when
 * the application changed meanwhile (the next pass reads again).
 */
export async function recordOutcome(
  record: Pick<ApplicationRecord, 'id' | 'company' | 'created_at' | 'outcome' | 'outcome_stage' | 'event_sequence'>,
  reading: { outcome: NonNullable<ApplicationRecord['outcome']>; stage: string | null },
  at: string,
): Promise<boolean> {
  const moved = reading.outcome !== (record.outcome ?? null);
  // The fields and every index attribute the application entity builds from them (P290): `updated_at` moves the
  // application's UPDATED entry. A null is never stored: an absent attribute is the null of the record.
  const parts = APPLICATION_ENTITY.updateParts(record, {
    outcome: reading.outcome,
    outcome_stage: reading.stage ?? undefined,
    outcome_updated_at: at,
    updated_at: at,
  });
  const values: Record<string, unknown> = { ...parts.values };
  const names: Record<string, string> = { ...parts.names };
  const extra: string[] = [];
  const conditions = ['attribute_exists(PK)'];
  if (record.outcome) {
    values[':was'] = record.outcome;
    conditions.push('outcome = :was');
  } else conditions.push('attribute_not_exists(outcome)');
  if (record.outcome_stage) {
    values[':wasStage'] = record.outcome_stage;
    conditions.push('outcome_stage = :wasStage');
  } else conditions.push('attribute_not_exists(outcome_stage)');
  if (moved) {
    const step = sequenceStep(record.event_sequence ?? 0);
    Object.assign(values, step.values, { ':event': moveEventAttribute('outcome', record.outcome ?? '') });
    names['#event'] = ITEM_EVENT_ATTRIBUTE;
    extra.push('event_sequence = :sequence', '#event = :event');
    conditions.push(step.condition);
  }
  const update = updateExpression(parts, extra);
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.application(record.id),
        UpdateExpression: update,
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}
