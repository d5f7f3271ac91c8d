/**
 * Item-borne application events (P240) without the emulators: the relay's stream filters as Lambda's event
 * filtering applies them (`matchesFilter`, with `exists`), the compact stored form and the envelope the relay
 * builds from a stream record's images.
 */
import type { DynamoDBRecord } from 'aws-lambda';
import { marshall } from '@aws-sdk/util-dynamodb';
import { applicationEventId, applicationEventOf, createdEventAttribute, moveEventAttribute } from '#applications/application-events.js';
import { RELAY_STREAM_FILTERS, matchesAnyFilter, matchesFilter } from '#delivery/background-functions.js';
import { itemBorneEvent, stageChangeOfRecord } from '#delivery/event-relay.js';

const image = (item: Record<string, unknown>) =>
  marshall(item, { removeUndefinedValues: true }) as NonNullable<NonNullable<DynamoDBRecord['dynamodb']>['NewImage']>;
const record = (
  eventName: DynamoDBRecord['eventName'],
  newItem?: Record<string, unknown>,
  oldItem?: Record<string, unknown>,
): DynamoDBRecord => ({
  eventName,
  dynamodb: {
    SequenceNumber: '1',
    Keys: image({ PK: String((newItem ?? oldItem)!.PK), SK: String((newItem ?? oldItem)!.SK) }),
    ...(newItem ? { NewImage: image(newItem) } : {}),
    ...(oldItem ? { OldImage: image(oldItem) } : {}),
  },
});

const application = {
  PK: 'APPLICATION#7',
  SK: 'APPLICATION',
  id: 7,
  company: 3,
  job: 11,
  created_at: '2026-11-26T10:00:00.000Z',
  updated_at: '2026-11-26T10:00:00.000Z',
  event_sequence: 1,
  sync_status: 'NOTSENT',
  email_sync_status: 'NOTSENT',
  external_apply_status: 'NOTSENT',
  failure_error: null,
  candidate: { email: 'ada@example.com', full_name: 'Ada Lovelace' },
  ev: createdEventAttribute(),
};
const synced = {
  ...application,
  updated_at: '2026-11-26T10:00:05.000Z',
  event_sequence: 2,
  sync_status: 'FAILURE',
  failure_error: 'rejected',
  ev: moveEventAttribute('sync_status', 'NOTSENT'),
};

describe('matchesFilter, as Lambda event filtering', () => {
  test('exists: true matches a present leaf and nothing absent; exists: false the reverse', () => {
    const present = { dynamodb: { NewImage: { ev: { S: 'c' } } } };
    const absent = { dynamodb: { NewImage: { other: { S: 'x' } } } };
    const noImage = { dynamodb: {} };
    const exists = { dynamodb: { NewImage: { ev: { S: [{ exists: true }] } } } };
    const missing = { dynamodb: { NewImage: { ev: { S: [{ exists: false }] } } } };
    expect([present, absent, noImage].map((r) => matchesFilter(r, exists))).toEqual([true, false, false]);
    expect([present, absent, noImage].map((r) => matchesFilter(r, missing))).toEqual([false, true, true]);
    // A value of another type is not the `S` leaf.
    expect(matchesFilter({ dynamodb: { NewImage: { ev: { N: '1' } } } }, exists)).toBe(false);
  });

  test('exact values and prefixes, each rule list ORed, fields ANDed', () => {
    const pattern = { eventName: ['INSERT', 'MODIFY'], dynamodb: { Keys: { PK: { S: [{ prefix: 'OUTBOX#' }] } } } };
    expect(matchesFilter({ eventName: 'MODIFY', dynamodb: { Keys: { PK: { S: 'OUTBOX#3' } } } }, pattern)).toBe(true);
    expect(matchesFilter({ eventName: 'REMOVE', dynamodb: { Keys: { PK: { S: 'OUTBOX#3' } } } }, pattern)).toBe(false);
    expect(matchesFilter({ eventName: 'INSERT', dynamodb: { Keys: { PK: { S: 'APPLICATION#3' } } } }, pattern)).toBe(false);
  });

  test("the relay's filters (ORed) select outbox INSERTs and writes of an item carrying an event, nothing else", () => {
    const outbox = { PK: 'OUTBOX#1', SK: 's', entity: 'outbox', event: '{}' };
    const counter = { PK: 'COUNT#COMPANY#3#APPS', SK: 'COUNT', total: 4 };
    const bare = { ...application, ev: undefined };
    const selected = [
      record('INSERT', outbox),
      record('REMOVE', undefined, outbox),
      record('INSERT', application),
      record('MODIFY', synced, application),
      record('MODIFY', synced, synced),
      record('REMOVE', undefined, synced),
      record('MODIFY', counter, counter),
      record('INSERT', bare),
    ].map((r) => matchesAnyFilter(r, RELAY_STREAM_FILTERS));
    expect(selected).toEqual([true, false, true, true, true, false, false, false]);
  });
});

describe('the envelope of an item-borne application event', () => {
  test('a create: the envelope the outbox carried, from the item; no personal data', () => {
    const message = itemBorneEvent(record('INSERT', application))!;
    expect(JSON.parse(message)).toEqual({
      id: applicationEventId(application),
      type: 'application.created',
      occurred_at: application.created_at,
      company: 3,
      sequence: 1,
      data: { application_id: 7, job_id: 11, sync_status: 'NOTSENT', email_sync_status: 'NOTSENT' },
    });
    expect(Object.keys(JSON.parse(message))).toEqual(['id', 'type', 'occurred_at', 'company', 'sequence', 'data']);
    expect(message).not.toMatch(/ada@example|Lovelace/);
    expect(JSON.parse(message).id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('a status move: its previous status from the stored form, the rest from the item as the write left it', () => {
    expect(JSON.parse(itemBorneEvent(record('MODIFY', synced, application))!)).toEqual({
      id: applicationEventId(synced),
      type: 'application.sync_status_changed',
      occurred_at: synced.updated_at,
      company: 3,
      sequence: 2,
      data: { application_id: 7, job_id: 11, sync_status: 'FAILURE', previous_sync_status: 'NOTSENT', failure_error: 'rejected' },
    });
    const engaged = {
      ...synced,
      event_sequence: 3,
      external_apply_status: 'ENGAGED',
      ev: moveEventAttribute('external_apply_status', 'REMINDED'),
    };
    expect(applicationEventOf(engaged)).toMatchObject({
      type: 'application.external_apply_status_changed',
      sequence: 3,
      data: { application_id: 7, job_id: 11, external_apply_status: 'ENGAGED', previous_external_apply_status: 'REMINDED' },
    });
    const mailed = {
      ...application,
      event_sequence: 2,
      email_sync_status: 'SUCCESS',
      ev: moveEventAttribute('email_sync_status', 'NOTSENT'),
    };
    expect(applicationEventOf(mailed)?.data).toEqual({
      application_id: 7,
      job_id: 11,
      email_sync_status: 'SUCCESS',
      previous_email_sync_status: 'NOTSENT',
    });
  });

  test('ids: one per application and sequence, stable; a write that leaves the event publishes nothing', () => {
    expect(applicationEventId(application)).toBe(applicationEventId({ ...application }));
    expect(
      new Set([application, synced, { ...application, id: 8 }, { ...application, created_at: 'x' }].map(applicationEventId)).size,
    ).toBe(4);
    // Written again without a new event (another attribute moved): same id, nothing to publish.
    expect(itemBorneEvent(record('MODIFY', { ...synced, sync_due_at: 'later' }, synced))).toBeUndefined();
    expect(itemBorneEvent(record('REMOVE', undefined, synced))).toBeUndefined();
    // An item written before P240 (no event on its old image) publishes its first new one.
    expect(itemBorneEvent(record('MODIFY', synced, { ...application, ev: undefined }))).toBeDefined();
  });

  test('an unreadable stored form is an error, not a guess', () => {
    expect(() => applicationEventOf({ ...application, ev: 'q|NOTSENT' })).toThrow(/unreadable event/);
    expect(() => applicationEventOf({ ...application, ev: 's' })).toThrow(/unreadable event/);
  });
});

describe('stage-only changes for the board (P345)', () => {
  const pending = {
    ...synced,
    sync_status: 'SUCCESS',
    failure_error: null,
    import_source: 'apply_webhook',
    talent_channel: 5,
    partner_application_id: 'ia-7',
    outcome: 'PENDING',
    outcome_stage: 'Applied',
    event_sequence: 3,
    ev: moveEventAttribute('outcome', ''),
  };
  const moved = { ...pending, outcome_stage: 'Interview', updated_at: '2026-11-27T09:00:00.000Z' };

  test('a new stage under the same outcome, from an apply channel: the board hears it, with ids, outcome and stage only', () => {
    const change = stageChangeOfRecord(record('MODIFY', moved, pending));
    expect(change).toEqual({
      kind: 'disposition-stage',
      company: 3,
      application: 7,
      job: 11,
      channel: 5,
      partner_application_id: 'ia-7',
      outcome: 'PENDING',
      stage: 'Interview',
      occurred_at: '2026-11-27T09:00:00.000Z',
      sequence: 3,
      id: expect.stringMatching(/^stage-[0-9a-f]{32}$/),
    });
    expect(JSON.stringify(change)).not.toMatch(/ada|Lovelace/);
    // The same change read again (a redelivered record) has the same id; another change another.
    expect(stageChangeOfRecord(record('MODIFY', moved, pending))!.id).toBe(change!.id);
    const later = { ...moved, outcome_stage: 'Offer', updated_at: '2026-11-28T09:00:00.000Z' };
    expect(stageChangeOfRecord(record('MODIFY', later, moved))!.id).not.toBe(change!.id);
    // No event rides on it: the relay publishes nothing for partners.
    expect(itemBorneEvent(record('MODIFY', moved, pending))).toBeUndefined();
  });

  test('nothing for an outcome move, an unchanged or dropped stage, an API-created application, an insert', () => {
    const hired = { ...moved, outcome: 'HIRED', outcome_stage: 'Hired' };
    const { outcome_stage: _dropped, ...anonymized } = moved;
    expect(stageChangeOfRecord(record('MODIFY', hired, pending))).toBeUndefined();
    expect(stageChangeOfRecord(record('MODIFY', { ...pending, notes: 'x' }, pending))).toBeUndefined();
    expect(stageChangeOfRecord(record('MODIFY', anonymized, moved))).toBeUndefined();
    expect(stageChangeOfRecord(record('MODIFY', { ...moved, import_source: 'api' }, { ...pending, import_source: 'api' }))).toBeUndefined();
    expect(stageChangeOfRecord(record('INSERT', moved))).toBeUndefined();
    expect(stageChangeOfRecord(record('MODIFY', moved, { ...pending, outcome: undefined, outcome_stage: undefined }))).toBeUndefined();
  });
});
