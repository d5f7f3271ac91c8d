/**
 * Entities declared once (issue 42 item 1, P290): a declaration that uses a slot twice, or builds one attribute
 * two ways, fails when it is made (module load); a write of some fields rewrites, from the declaration, every
 * attribute built from one of them, so a newly indexed field is followed by status moves and retention.
 */
import { defineEntity, updateExpression, type Part } from '#platform/entities.js';
import { partitionKeyOf, sortKeyOf } from '#platform/table.js';
import { indexKeys } from '#platform/keys.js';
import { APPLICATION_ENTITY, statusMoveUpdate } from '#applications/application-store.js';
import { JOB_ENTITY } from '#jobs/job-store.js';
import { COMPANY_ENTITY } from '#companies/company-layout.js';
import { OUTCOME_WATCH_ENTITY } from '#applications/outcome-store.js';
import { PERSONAL_DATA_FIELDS } from '#delivery/retention.js';

interface Pet {
  id: number;
  owner: number;
  created_at: string;
  colour?: string;
  size?: string;
  nickname?: string;
  due_at?: string;
}

const sort: Part<Pet> = { fields: ['created_at', 'id'], build: (p) => `${p.created_at}#${p.id}` };
const slot = (field: 'colour' | 'size' | 'nickname'): Part<Pet> => ({
  fields: ['owner', field],
  build: (p) => (p[field] === undefined ? undefined : `OWNER#${p.owner}#${field}=${p[field]}`),
});

test('an entity that uses one slot twice fails when it is declared, naming the entity and the slot', () => {
  const declare = () =>
    defineEntity<Pet>({
      entity: 'pet',
      indexes: [
        { pattern: 'colour', index: 'SLOT1', pk: slot('colour'), sk: sort },
        { pattern: 'size', index: 'SLOT1', pk: slot('size'), sk: sort },
      ],
    });
  expect(declare).toThrow('entity pet uses index SLOT1 twice: for colour and for size');
  // The same two filters on two slots are a valid declaration.
  const pets = defineEntity<Pet>({
    entity: 'pet',
    indexes: [
      { pattern: 'colour', index: 'SLOT1', pk: slot('colour'), sk: sort },
      { pattern: 'size', index: 'SLOT2', pk: slot('size'), sk: sort },
    ],
  });
  expect(pets.indexes).toEqual(['SLOT1', 'SLOT2']);
  expect(pets.indexAttributes).toEqual([partitionKeyOf('SLOT1'), sortKeyOf('SLOT1'), partitionKeyOf('SLOT2')]);
});

test('an attribute two indexes share must be built the same way; a derived attribute may not be an index key', () => {
  const otherSort: Part<Pet> = { fields: ['id'], build: (p) => String(p.id) };
  // SLOT1 and SLOT2 share their sort key attribute (the collection sort).
  expect(() =>
    defineEntity<Pet>({
      entity: 'pet',
      indexes: [
        { pattern: 'colour', index: 'SLOT1', pk: slot('colour'), sk: sort },
        { pattern: 'size', index: 'SLOT2', pk: slot('size'), sk: otherSort },
      ],
    }),
  ).toThrow(`entity pet: index SLOT2 (size) builds ${sortKeyOf('SLOT2')} differently from index SLOT1 (colour)`);
  expect(() =>
    defineEntity<Pet>({
      entity: 'pet',
      indexes: [{ pattern: 'colour', index: 'SLOT1', pk: slot('colour'), sk: sort }],
      attributes: { [partitionKeyOf('SLOT1')]: slot('size') },
    }),
  ).toThrow(`entity pet: attribute ${partitionKeyOf('SLOT1')} is an index key of index SLOT1 (colour)`);
});

describe('a write of some fields rewrites every attribute built from one of them', () => {
  const pets = defineEntity<Pet>({
    entity: 'pet',
    indexes: [
      { pattern: 'colour', index: 'SLOT1', pk: slot('colour'), sk: sort },
      { pattern: 'nickname', index: 'SLOT2', pk: slot('nickname'), sk: sort },
      {
        pattern: 'due',
        index: 'DUE',
        pk: { fields: ['id', 'due_at'], build: (p) => (p.due_at ? `DUE#${p.id % 2}` : undefined) },
        sk: { fields: ['due_at', 'id'], build: (p) => (p.due_at ? `${p.due_at}#${p.id}` : undefined) },
        keepWhenCleared: true,
      },
    ],
    attributes: { nickname_lc: { fields: ['nickname'], build: (p) => p.nickname?.toLowerCase() } },
  });
  const identity = { id: 7, owner: 3, created_at: '2026-01-01T00:00:00.000Z' };
  const written = (parts: ReturnType<typeof pets.updateParts>) => ({
    set: Object.fromEntries(
      parts.set.map((clause) => clause.split(' = ')).map(([name, value]) => [parts.names[name], parts.values[value]]),
    ),
    remove: parts.remove.map((name) => parts.names[name]).sort(),
  });

  test('a create writes every attribute the record has', () => {
    expect(pets.item({ ...identity, colour: 'red', nickname: 'Rex' })).toEqual({
      [partitionKeyOf('SLOT1')]: 'OWNER#3#colour=red',
      [sortKeyOf('SLOT1')]: '2026-01-01T00:00:00.000Z#7',
      [partitionKeyOf('SLOT2')]: 'OWNER#3#nickname=Rex',
      nickname_lc: 'rex',
    });
  });

  test('setting a field moves its slot and its copy, and nothing else', () => {
    expect(written(pets.updateParts(identity, { nickname: 'Max' }))).toEqual({
      set: { nickname: 'Max', [partitionKeyOf('SLOT2')]: 'OWNER#3#nickname=Max', nickname_lc: 'max' },
      remove: [],
    });
  });

  test('clearing fields (as retention does) removes every attribute built from them, found from the declaration', () => {
    const parts = pets.updateParts(identity, { nickname: undefined, colour: undefined, size: 'big' });
    expect(written(parts)).toEqual({
      set: { size: 'big' },
      remove: ['colour', 'nickname', 'nickname_lc', partitionKeyOf('SLOT1'), partitionKeyOf('SLOT2')].sort(),
    });
    expect(updateExpression(parts, ['rev = :rev'])).toMatch(/^SET rev = :rev, #e\d = :e\d REMOVE (#e\d, ){4}#e\d$/);
  });

  test('an entry kept when cleared stays; a new value moves it', () => {
    expect(written(pets.updateParts({ id: 7 }, { due_at: undefined }))).toEqual({ set: {}, remove: ['due_at'] });
    expect(written(pets.updateParts({ id: 7 }, { due_at: '2026-02-01' }))).toEqual({
      set: { due_at: '2026-02-01', [partitionKeyOf('DUE')]: 'DUE#1', [sortKeyOf('DUE')]: '2026-02-01#7' },
      remove: [],
    });
  });

  test('a write that does not know a field an attribute is built from fails, rather than writing a wrong key', () => {
    expect(() => pets.updateParts({ id: 7 }, { colour: 'blue' })).toThrow(
      'entity pet: rewriting X1PK needs owner (built from owner, colour)',
    );
    // With the whole record, an absent field is one the record does not have.
    expect(written(pets.updateParts({ id: 7, owner: 3, created_at: identity.created_at }, { colour: 'blue' }, { complete: true }))).toEqual(
      {
        set: { colour: 'blue', [partitionKeyOf('SLOT1')]: 'OWNER#3#colour=blue' },
        remove: [],
      },
    );
    expect(() => pets.updateParts(identity, { nickname_lc: 'x' })).toThrow('entity pet: nickname_lc is derived, not written');
  });

  test('a derivation sees only the fields it declares', () => {
    const sneaky = defineEntity<Pet>({
      entity: 'sneaky',
      indexes: [],
      attributes: { both: { fields: ['colour'], build: (p) => `${p.colour}/${p.size}` } },
    });
    expect(sneaky.item({ ...identity, colour: 'red', size: 'big' })).toEqual({ both: 'red/undefined' });
  });
});

describe('the entities of the service', () => {
  test.each([
    ['application', APPLICATION_ENTITY],
    ['job', JOB_ENTITY],
    ['company', COMPANY_ENTITY],
    ['outcome watch', OUTCOME_WATCH_ENTITY],
  ] as const)('%s: declared once, each index key built from named fields', (name, entity) => {
    expect(entity.entity).toBe(name);
    expect(new Set(entity.indexes).size).toBe(entity.indexes.length);
    for (const index of entity.indexes) {
      expect(entity.indexAttributes).toContain(partitionKeyOf(index));
      expect(entity.indexAttributes).toContain(sortKeyOf(index));
    }
  });

  test('the outcome watch (P321): its DUE entry is built from the id (shard) and applied_at, nothing else', () => {
    const appliedAt = '2026-03-04T05:06:07.890Z';
    const item = OUTCOME_WATCH_ENTITY.item({ id: 4_000_006, applied_at: appliedAt, reference: 'R-1', job_external_id: 'J-1' });
    expect(item).toEqual({ [partitionKeyOf('DUE')]: 'OUTCOMEWATCH#2', [sortKeyOf('DUE')]: indexKeys.createdSort(appliedAt, 4_000_006) });
    expect(OUTCOME_WATCH_ENTITY.fieldsOf(sortKeyOf('DUE'))).toEqual(['applied_at', 'id']);
    // The entry sorts by applied_at, so the reading pass's ranges of applied_at (P320) find it.
    expect(String(item[sortKeyOf('DUE')]) >= appliedAt && String(item[sortKeyOf('DUE')]) < '2026-03-04T05:06:07.891Z').toBe(true);
  });

  test("retention's purge removes what the application entity builds from personal data: the e-mail lookup and its copy", () => {
    const built = APPLICATION_ENTITY.attributes.filter((a) =>
      APPLICATION_ENTITY.fieldsOf(a).some((f) => (PERSONAL_DATA_FIELDS as readonly string[]).includes(f)),
    );
    expect(built.sort()).toEqual([partitionKeyOf('LOOKUP'), 'email_lc'].sort());
  });

  test('a status move writes what the application entity builds from the fields it moves, from the declaration', () => {
    process.env.TABLE_NAME ??= 'entities-unit';
    const record = { id: 21, company: 4, created_at: '2026-01-01T00:00:00.000Z' };
    const at = '2026-01-02T03:04:05.000Z';
    const update = statusMoveUpdate(record, { field: 'sync_status', from: 'PENDING', to: 'SENT', at, previous: 2, leaveSyncDue: true });
    const names = update.ExpressionAttributeNames as Record<string, string>;
    const values = update.ExpressionAttributeValues as Record<string, unknown>;
    const [set, remove = ''] = update.UpdateExpression.replace(/^SET /, '').split(' REMOVE ');
    const written = new Map(
      set
        .split(', ')
        .map((clause) => clause.split(' = '))
        .map(([name, value]) => [names[name] ?? name, values[value]] as const),
    );
    const removed = remove ? remove.split(', ').map((name) => names[name] ?? name) : [];
    const moved = ['sync_status', 'updated_at', 'sync_due_at'];
    const moves: unknown = { ...record, sync_status: 'SENT', updated_at: at };
    const after = APPLICATION_ENTITY.derive(moves as Parameters<typeof APPLICATION_ENTITY.derive>[0]);
    const affected = APPLICATION_ENTITY.attributes.filter((a) => APPLICATION_ENTITY.fieldsOf(a).some((f) => moved.includes(f)));
    // The sync-status slot and the updated_at sort move; the sync-due entry stays where it is (P242).
    expect(affected.sort()).toEqual([partitionKeyOf('DUE'), sortKeyOf('DUE'), partitionKeyOf('SLOT1'), sortKeyOf('UPDATED')].sort());
    for (const attribute of affected)
      if (after.get(attribute) === undefined)
        expect([attribute, written.has(attribute), removed]).toEqual([attribute, false, ['sync_due_at']]);
      else expect([attribute, written.get(attribute)]).toEqual([attribute, after.get(attribute)]);
    expect(written.get(partitionKeyOf('SLOT1'))).toBe('COMPANY#4#APPS#sync_status=SENT');
    expect(written.get('sync_status')).toBe('SENT');
    expect(update.ConditionExpression).toBe('#field = :from AND event_sequence = :previous');
  });
});
