/**
 * @entity-store: one of the modules that may name index attributes (test/unit/architecture.test.ts).
 * The application store (issue 22, item 3): the layout of application items and their named writes.
 * The entity's declaration (`APPLICATION_ENTITY`, P290) names every index an item is in and the fields each
 * key is built from (the collections, the e-mail lookup, the exact-filter slots, the date sorts, the sync-due
 * index); the create derives them all (`toApplicationItem`; and the lookup items of the partner ids,
 * `applicationLookupItems`); the reads return records (`fromApplicationItem`); the later writes are named
 * operations that derive the attributes built from what they write: a status move with its event sequence
 * step, the sync-due index the sweeper reads, and retention's purge. The counters an application counts in are `application-counters.ts`. The sync worker,
 * the external-apply follow-up, retention, the presentation, the list and the create name no index attribute
 * (`test/unit/architecture.test.ts` holds them to it).
 */
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApplicationRecord } from '#applications/applications.js';
import {
  APPLICATION_FILTER_SLOTS as DECLARED_SLOTS,
  LOOKUP_FILTERS,
  type LookupFilter,
  type SlotFilter,
} from '#applications/application-filters.js';
import { batchGetItems } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isConditionFailure } from '#platform/errors.js';
import { moveEventAttribute } from '#applications/application-events.js';
import { ITEM_EVENT_ATTRIBUTE, sequenceStep } from '#platform/events.js';
import { collections, compactFrom, indexKeys, keys, syncDueShard } from '#platform/keys.js';
import { defineEntity, updateExpression, type IndexUse, type Part, type UpdateParts } from '#platform/entities.js';
import { exactSource, type CollectionQuery } from '#platform/paged-query.js';
import { keyAttributes, type IndexName } from '#platform/table.js';

// ---------------------------------------------------------------------------------------------------
// Layout

/**
 * The layout of an application item's index attributes, stored on every item (`index_version`). There is one
 * layout; a future change to it ships with its own backfill (docs/decisions.md, P190).
 */
export const APPLICATION_INDEX_VERSION = 3;

/**
 * Everything the item holds besides the record: every key attribute of the table, search copies, the layout,
 * and its latest event (P240, for the relay).
 */
const INTERNAL_ATTRIBUTES = /* @__PURE__ */ internalAttributes();
function internalAttributes(): string[] {
  return [...keyAttributes(), 'email_lc', 'index_version', ITEM_EVENT_ATTRIBUTE];
}

/**
 * Exact filters with a slot index of their own (docs/access-patterns.md): a page of one filter's matches
 * reads its keys and the page's items. `email` has LOOKUP; `job` has SLOT3 since P238 (GSI3 before; the agency
 * slot it took is gone since P236).
 */
export const APPLICATION_FILTER_SLOTS = Object.fromEntries(DECLARED_SLOTS) as Readonly<Record<SlotFilter, IndexName>>;
export type { SlotFilter };

/**
 * Exact filters served by lookup items (P241; SLOT5–SLOT8 before): values a record has at most once and often
 * not at all, which never change after the create. Each is a base-table item in the partition its slot had,
 * sorted by the application's `GSI1SK`, written in the create's transaction. Retention leaves them (they hold
 * the partner's id value only, which the record keeps, and the totals still count the record).
 */
export const APPLICATION_LOOKUPS: readonly LookupFilter[] = LOOKUP_FILTERS;
export type { LookupFilter };
/** Every exact filter with a partition of its own: a slot's, or lookup items'. */
export type ExactFilter = SlotFilter | LookupFilter;

/** A filter's value on the record (an exact filter's, or the job's for its counter). */
export const filterValue = (r: ApplicationRecord, filter: ExactFilter | 'job') => r[filter] as string | number | null | undefined;

/** The partition of one filter value in a company's applications (a slot's, or lookup items'). */
export function applicationSlot(companyId: number, filter: ExactFilter, value: string | number): string {
  return indexKeys.filterSlot(collections.companyApplications(companyId), filter, value);
}

/** Where a list reads one filter value's applications, in creation order: its slot, or its lookup items. */
export function applicationSource(
  companyId: number,
  filter: ExactFilter,
  value: string | number,
): Pick<CollectionQuery, 'index' | 'partitionValue' | 'lookup'> {
  const slot = (APPLICATION_FILTER_SLOTS as Partial<Record<ExactFilter, IndexName>>)[filter];
  return exactSource(applicationSlot(companyId, filter, value), slot, filter, keys.application);
}

/** The lookup items of a record (P241): one per lookup filter it has a value of. */
export function applicationLookupItems(r: ApplicationRecord): Record<string, unknown>[] {
  const sort = indexKeys.collectionSort(r.created_at, r.id);
  return APPLICATION_LOOKUPS.flatMap((filter) => {
    const value = filterValue(r, filter);
    return value === null || value === undefined ? [] : [keys.lookup(applicationSlot(r.company, filter, value), sort)];
  });
}

const collectionOf: Part<ApplicationRecord> = { fields: ['company'], build: (r) => indexKeys.companyApplications(r.company) };
const collectionSort: Part<ApplicationRecord> = {
  fields: ['created_at', 'id'],
  build: (r) => indexKeys.collectionSort(r.created_at, r.id),
};
const emailOf = (r: Pick<ApplicationRecord, 'candidate'>) => {
  const email = r.candidate?.email;
  return typeof email === 'string' ? email : undefined;
};
const slotUse = ([filter, index]: readonly [SlotFilter, IndexName]): IndexUse<ApplicationRecord> => ({
  pattern: filter,
  index,
  pk: {
    fields: ['company', filter],
    build: (r) => {
      const value = filterValue(r, filter);
      return value === null || value === undefined ? undefined : applicationSlot(r.company, filter, value);
    },
  },
  sk: collectionSort,
});

/**
 * The application entity (P290): every index an application item is in, and what each key is built from. The
 * create writes them all (`toApplicationItem`); a status move, the sync-due index and retention's purge write
 * those built from the fields they write (`updateParts`). The sync-due entry stays when `sync_due_at` goes (P242).
 */
export const APPLICATION_ENTITY = defineEntity<ApplicationRecord>({
  entity: 'application',
  indexes: [
    { pattern: "the company's applications", index: 'COLLECTION', pk: collectionOf, sk: collectionSort },
    {
      pattern: 'email',
      index: 'LOOKUP',
      pk: {
        fields: ['company', 'candidate'],
        build: (r) => {
          const email = emailOf(r);
          return email === undefined ? undefined : indexKeys.applicationsByEmail(r.company, email);
        },
      },
      sk: collectionSort,
    },
    {
      pattern: 'sync due',
      index: 'DUE',
      pk: { fields: ['id', 'sync_due_at'], build: (r) => (r.sync_due_at ? indexKeys.syncDue(r.id) : undefined) },
      sk: { fields: ['sync_due_at', 'id'], build: (r) => (r.sync_due_at ? indexKeys.createdSort(r.sync_due_at, r.id) : undefined) },
      keepWhenCleared: true,
    },
    ...[...DECLARED_SLOTS].map(slotUse),
    {
      pattern: 'applied_at',
      index: 'APPLIED',
      pk: collectionOf,
      sk: { fields: ['applied_at', 'created_at', 'id'], build: (r) => indexKeys.dateSort(r.applied_at, r.created_at, r.id) },
    },
    {
      pattern: 'updated_at',
      index: 'UPDATED',
      pk: collectionOf,
      sk: { fields: ['updated_at', 'created_at', 'id'], build: (r) => indexKeys.dateSort(r.updated_at, r.created_at, r.id) },
    },
  ],
  attributes: { email_lc: { fields: ['candidate'], build: (r) => emailOf(r)?.toLowerCase() } },
});

/** The record an item holds: the item without its key, index and search attributes. */
export function fromApplicationItem(item: Record<string, unknown>): ApplicationRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as ApplicationRecord;
}

/** The item of a record: the record with every key and index attribute the layout derives from it. */
export function toApplicationItem(r: ApplicationRecord): Record<string, unknown> {
  return { ...keys.application(r.id), ...APPLICATION_ENTITY.item(r), index_version: APPLICATION_INDEX_VERSION, ...r };
}

// ---------------------------------------------------------------------------------------------------
// Reads

/** The application's sync status and event sequence (consistent read), for a writer that lost a race. */
export async function applicationSyncState(
  id: number,
): Promise<{ sync_status?: string; email_sync_status?: string; event_sequence: number }> {
  const out = await db().send(
    new GetCommand({
      TableName: config().tableName,
      Key: keys.application(id),
      ConsistentRead: true,
      ProjectionExpression: 'sync_status, email_sync_status, event_sequence',
    }),
  );
  return {
    sync_status: out.Item?.sync_status as string | undefined,
    email_sync_status: out.Item?.email_sync_status as string | undefined,
    event_sequence: Number(out.Item?.event_sequence ?? 0),
  };
}

/** Strongly consistent: the worker and a client reading right after the create must see it. */
export async function getApplicationRecord(id: number): Promise<ApplicationRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.application(id), ConsistentRead: true }));
  return out.Item ? fromApplicationItem(out.Item) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// Named writes

type Identity = Pick<ApplicationRecord, 'id' | 'company' | 'created_at'>;

/** An UpdateCommand's expression, names and values from update parts. */
const updateOf = (parts: UpdateParts) => ({
  UpdateExpression: updateExpression(parts),
  ExpressionAttributeNames: parts.names,
  ...(Object.keys(parts.values).length ? { ExpressionAttributeValues: parts.values } : {}),
});

/**
 * A write of `fields` to an application (undefined: removed) and of every attribute the entity builds from one
 * of them (P290), while `condition` holds; false when it did not.
 */
async function updateApplication(
  known: Partial<ApplicationRecord> & Pick<ApplicationRecord, 'id'>,
  fields: Record<string, unknown>,
  condition?: string,
) {
  try {
    await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.application(known.id),
        ...updateOf(APPLICATION_ENTITY.updateParts(known, fields)),
        ...(condition ? { ConditionExpression: condition } : {}),
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

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
  /** Nothing is due after this move: `sync_due_at` goes in the same write (its DUE entry stays, P242). */
  leaveSyncDue?: boolean;
}

/**
 * The Update of a status move with its event (sequence `previous + 1`) on the item, which the relay publishes
 * (P240). It applies only while the field still holds `from` and the sequence is `previous`, so of two racing
 * moves one wins (and only its event is published).
 */
export function statusMoveUpdate(record: Identity, move: StatusMove) {
  const step = sequenceStep(move.previous);
  const fields: Record<string, unknown> = {
    [move.field]: move.to,
    updated_at: move.at,
    ...move.also,
    ...(move.leaveSyncDue ? { sync_due_at: undefined } : {}),
  };
  const parts = APPLICATION_ENTITY.updateParts(record, fields);
  return {
    TableName: config().tableName,
    Key: keys.application(record.id),
    UpdateExpression: updateExpression(parts, ['event_sequence = :sequence', '#event = :event']),
    ConditionExpression: `#field = :from AND ${step.condition}`,
    ExpressionAttributeNames: { ...parts.names, '#field': move.field, '#event': ITEM_EVENT_ATTRIBUTE },
    ExpressionAttributeValues: { ...parts.values, ':from': move.from, ':event': moveEventAttribute(move.field, move.from), ...step.values },
  };
}

/**
 * The sync-due index (P242). `sync_due_at` on the item says whether anything is still due; its DUE entry
 * (`SYNCDUE#<shard>` / `<due>#<id>`) is written with it and moved with it, but never deleted: an application
 * that settles removes `sync_due_at` only, so the entry stays behind at its last due time. The sweeper reads
 * each shard from a mark (`syncSweepMarks`) up to now, re-reads the items and skips those with no
 * `sync_due_at`; once its mark has passed an entry it never reads it again, so a left entry costs storage only.
 */

/**
 * When the sweeper should look at the application again: moves its DUE entry to `due`. Nothing when it is
 * settled (no `sync_due_at`); then false.
 */
export async function setSyncDue(id: number, due: string): Promise<boolean> {
  return updateApplication({ id }, { sync_due_at: due }, 'attribute_exists(sync_due_at)');
}

/** Nothing more is due: `sync_due_at` goes (the DUE entry stays behind, for the sweeper's mark to pass). */
export async function leaveSyncDue(id: number): Promise<void> {
  await updateApplication({ id }, { sync_due_at: undefined });
}

/** One page of a sync-due shard's entries after `after` (a time or an entry's sort, exclusive) and before `before`, oldest first. */
export async function syncDuePage(
  shard: number,
  after: string | undefined,
  before: string,
  limit: number,
): Promise<{ entries: { id: number; sort: string }[]; more: boolean }> {
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'DUE',
      // `!` sorts below `#` and every digit: `<after>!` is just past `after` and before anything later.
      KeyConditionExpression: 'DUEPK = :pk AND DUESK BETWEEN :after AND :now',
      ExpressionAttributeValues: { ':pk': syncDueShard(shard), ':after': after === undefined ? '!' : `${after}!`, ':now': before },
      Limit: limit,
    }),
  );
  const entries = (out.Items ?? []).map((item) => ({ id: Number(String(item.PK).split('#')[1]), sort: String(item.DUESK) }));
  return { entries, more: Boolean(out.LastEvaluatedKey) };
}

/** Of `ids`, those whose sync is still due (the item has `sync_due_at`): one batch read of the items. */
export async function stillSyncDue(ids: number[]): Promise<Set<number>> {
  const items = await batchGetItems(ids.map((id) => keys.application(id)));
  return new Set([...items.values()].filter((item) => item.sync_due_at !== undefined).map((item) => Number(item.id)));
}

/** Where the sweeper starts in each shard (a time or an entry's sort, exclusive); one item for every shard. */
export async function syncSweepMarks(): Promise<Record<string, string>> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.syncSweepMarks(), ConsistentRead: true }));
  return (out.Item?.marks as Record<string, string> | undefined) ?? {};
}

export async function setSyncSweepMarks(marks: Record<string, string>): Promise<void> {
  await db().send(new PutCommand({ TableName: config().tableName, Item: { ...keys.syncSweepMarks(), marks } }));
}

/**
 * Retention's walk (D10, P233): a company's applications oldest first on COLLECTION (its collection, compact keys, P235),
 * from where the last run stopped (`retentionMark`) to those created before `createdBefore`. Applications are
 * created with the service's clock, so none is ever created behind the mark, which trails it by 180 days.
 */
export async function personalDataDue(
  companyId: number,
  createdBefore: string,
  limit: number,
): Promise<{ ids: number[]; last?: string; more: boolean }> {
  const mark = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.retentionMark(companyId) }));
  const from = typeof mark.Item?.through === 'string' ? `${mark.Item.through}!` : '0';
  const out = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      IndexName: 'COLLECTION',
      KeyConditionExpression: 'GSI1PK = :pk AND GSI1SK BETWEEN :from AND :before',
      ExpressionAttributeValues: { ':pk': indexKeys.companyApplications(companyId), ':from': from, ':before': compactFrom(createdBefore) },
      Limit: limit,
    }),
  );
  const entries = out.Items ?? [];
  const ids = entries.map((item) => Number(String(item.PK).split('#')[1]));
  return { ids, last: entries.length ? String(entries[entries.length - 1].GSI1SK) : undefined, more: Boolean(out.LastEvaluatedKey) };
}

/** Retention has purged a company's applications up to `through` (a KEYS sort key), in order. */
export async function advanceRetentionMark(companyId: number, through: string): Promise<void> {
  await db().send(new PutCommand({ TableName: config().tableName, Item: { ...keys.retentionMark(companyId), through } }));
}

/**
 * The candidate asked for no more external apply reminders (P207): `external_apply_unsubscribed_at`, once (a
 * repeat writes nothing), with whatever the entity builds from it (nothing today, P290).
 */
export async function markExternalApplyUnsubscribed(id: number, at: string): Promise<void> {
  await updateApplication(
    { id },
    { external_apply_unsubscribed_at: at },
    'attribute_exists(PK) AND attribute_not_exists(external_apply_unsubscribed_at)',
  );
}

/**
 * Retention's purge (D10): removes the personal data fields and every attribute built from one of them (the
 * e-mail lookup and its search copy, and whatever the entity declares next, P290), sets `status: anonymized`;
 * only once (a record that no longer holds data is left alone).
 */
export async function clearPersonalData(record: Identity, fields: readonly string[], at: string): Promise<void> {
  const cleared = Object.fromEntries(fields.map((field) => [field, undefined]));
  await updateApplication(
    record,
    { ...cleared, status: 'anonymized', personal_data_deleted_at: at, updated_at: at },
    'attribute_exists(PK) AND attribute_not_exists(personal_data_deleted_at)',
  );
}
