/**
 * @entity-store: one of the modules that may name index attributes (test/unit/architecture.test.ts).
 * The company store (issue 11, issue 22 item 3): the only code that writes company items (tests' and benchmarks'
 * batched seeding path, `company-seeding.ts`, writes the same items from this module's functions: P335). Reads by key; the
 * one writer of an existing company (`writeCompanyChange`, which keeps the index attributes, the partner's
 * counters and the search document in the same write); creation (admin only); and the named changes:
 * the PATCH, maintained fields, entitlements, lifecycle states, the job import's failure count and its claim
 * on the company (one run at a time). The item layout is `company-layout.ts`'s.
 */
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll, queryItemsByKeys } from '#platform/batch.js';
import { atsBySlug, atsSlugs } from '#companies/ats.js';
import { config, db } from '#platform/clients.js';
import { isoNow, now } from '#platform/clock.js';
import { applyChannelSlugs, isEntitlement, type Entitlement } from '#companies/entitlements.js';
import { missingApplyChannels } from '#companies/apply-channels.js';
import { ConflictError, NotFoundError, ValidationError, invalidField, isConditionFailure } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { indexKeys, keys } from '#platform/keys.js';
import { linkOpenFor, revokeIfActive, type StoredMagicLink } from '#companies/magic-links.js';
import { readSearchShard, sameSearchEntry, searchEntryOf, searchShardPut } from '#companies/company-search.js';
import {
  companyChangeParts,
  companyCounterMove,
  companyLookupItems,
  companySlugItem,
  fromItem,
  newCompanyItem,
  slugify,
} from '#companies/company-layout.js';
import { updateExpression } from '#platform/entities.js';
import {
  COMPANY_STATUSES,
  presentCompany,
  toCompany,
  type Company,
  type CompanyPatch,
  type CompanyRecord,
  type CompanyStatus,
} from '#companies/company-schema.js';

// ---------------------------------------------------------------------------------------------------
// Reads by key

/** Reads one company by id (strongly consistent: it decides access). */
export async function getCompanyRecord(id: number): Promise<CompanyRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.company(id), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/** The company or a 404 naming it (admin commands). */
export async function requireCompany(id: number): Promise<CompanyRecord> {
  const company = await getCompanyRecord(id);
  if (!company) throw new NotFoundError(`Company ${id} does not exist.`);
  return company;
}

/** Every company's entry: LOOKUP's partition `COMPANIES`, keys only (P195), 0.5 units per ~100 companies. */
const allCompaniesQuery = () => ({
  IndexName: 'LOOKUP',
  KeyConditionExpression: 'GSI2PK = :pk',
  ExpressionAttributeValues: { ':pk': indexKeys.allCompanies() },
});

/** The id of every company, deleted ones too (retention walks each). */
export async function allCompanyIds(): Promise<number[]> {
  return (await queryAll(allCompaniesQuery())).map((e) => Number(String(e.PK).slice('COMPANY#'.length)));
}

/** Every company, for the scheduled job import's fan-out: their keys, then the companies by key, 100 a call. */
export async function allCompanies(): Promise<CompanyRecord[]> {
  return (await queryItemsByKeys(allCompaniesQuery())).map(fromItem);
}

// ---------------------------------------------------------------------------------------------------
// The one writer of an existing company

/** Fields the service maintains on a company, which no PATCH sets (import status, connection, entitlements, …). */
export type MaintainedCompanyFields = Partial<
  Pick<
    CompanyRecord,
    | 'jobs_last_synced_at'
    | 'status'
    | 'fallback_job'
    | 'ats'
    | 'ats_connection'
    | 'entitlements'
    | 'job_import_failures'
    | 'magic_link_token'
    | 'contact_name'
    | 'contact_email'
    | 'updated_at'
  >
>;

/** A company item as stored: the record and its revision (bumped by every change). */
export interface StoredCompany {
  record: CompanyRecord;
  rev: number;
}

/** The stored company of an item read whole. */
export function storedCompany(item: Record<string, unknown>): StoredCompany {
  return { record: fromItem(item), rev: Number(item.rev ?? 0) };
}

/**
 * The transaction items of one change to a stored company: the Update that sets the changed fields, the
 * index attributes built from them (P290) and the next revision (conditional on the revision read, so two
 * writers never move the counters from the same old state), the counter Update when a total moves, and the
 * lookup items that move (P241: a `partner_company_id` set, changed or cleared).
 */
export function companyChangeItems(
  stored: StoredCompany,
  fields: MaintainedCompanyFields | Partial<CompanyRecord>,
  /** Attributes outside the record to remove with the change (the job import run's claim, P328). */
  remove: readonly CompanyRunAttribute[] = [],
) {
  const next: CompanyRecord = { ...stored.record, ...fields };
  const counter = companyCounterMove(stored.record, next);
  const parts = companyChangeParts(next, fields);
  parts.remove.push(...remove);
  const update = {
    TableName: config().tableName,
    Key: keys.company(next.id),
    UpdateExpression: updateExpression(parts, ['#rev = :rev']),
    ConditionExpression: stored.rev ? '#rev = :oldrev' : 'attribute_exists(PK) AND attribute_not_exists(#rev)',
    ExpressionAttributeNames: { ...parts.names, '#rev': 'rev' },
    ExpressionAttributeValues: { ...parts.values, ':rev': stored.rev + 1, ...(stored.rev ? { ':oldrev': stored.rev } : {}) },
  };
  return { next, update, items: [{ Update: update }, ...(counter ? [{ Update: counter }] : []), ...lookupMoves(stored.record, next)] };
}

/** The lookup items a change from `old` to `next` deletes and puts (none when its lookup values stay). */
function lookupMoves(old: CompanyRecord, next: CompanyRecord) {
  const key = (item: Record<string, unknown>) => `${String(item.PK)}\u0000${String(item.SK)}`;
  const before = new Map(companyLookupItems(old).map((item) => [key(item), item]));
  const after = new Map(companyLookupItems(next).map((item) => [key(item), item]));
  return [
    ...[...before]
      .filter(([k]) => !after.has(k))
      .map(([, item]) => ({ Delete: { TableName: config().tableName, Key: { PK: item.PK, SK: item.SK } } })),
    ...[...after].filter(([k]) => !before.has(k)).map(([, Item]) => ({ Put: { TableName: config().tableName, Item } })),
  ];
}

async function readStoredCompany(id: number): Promise<StoredCompany | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.company(id), ConsistentRead: true }));
  return out.Item ? storedCompany(out.Item) : undefined;
}

/** A shard another writer changed since it was read: wait a little (jittered), then read again. */
const shardBackoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * (attempt + 1)));
const SHARD_ATTEMPTS = 8;

/** Attributes of the company item that are not record fields and that a change may remove with it. */
export type CompanyRunAttribute = 'job_import_running_until';

export interface CompanyWriteOptions {
  /** Items written in the same transaction (the sealed credentials, say). */
  with?: Record<string, unknown>[];
  /** The company as the caller has just read it whole, tried before a read of its own (P328). */
  stored?: StoredCompany;
  /** Attributes removed by the same write (P328: the end of a job import run's claim). */
  remove?: readonly CompanyRunAttribute[];
}

/** A change to one company: the fields to set, or a function of the current record (undefined: no change). */
export type CompanyChange = MaintainedCompanyFields | Partial<CompanyRecord> | ((c: CompanyRecord) => Partial<CompanyRecord> | undefined);

/**
 * The one writer of an existing company: reads it, applies the change with its index attributes and counter
 * moves (plus `with`'s items, such as the sealed credentials, in the same transaction), and tries again from
 * a fresh read when another writer changed the company in between. Returns the new record.
 */
export async function writeCompanyChange(id: number, change: CompanyChange, options: CompanyWriteOptions = {}): Promise<CompanyRecord> {
  for (let attempt = 0; ; attempt++) {
    // P328: a company the caller has just read (with its revision) is tried first; a stale one fails the
    // revision condition and is read afresh, as a concurrent change is.
    const stored = attempt === 0 && options.stored ? options.stored : await readStoredCompany(id);
    if (!stored) throw new NotFoundError(`Company ${id} does not exist.`);
    const fields = typeof change === 'function' ? change(stored.record) : change;
    if (!fields) return stored.record;
    const { next, update, items } = companyChangeItems(stored, fields, options.remove);
    const extra = options.with ?? [];
    // Its search entry follows in the same transaction when the change moves it (P179). Every company has its
    // entry from its creation on, written with each change that moves it: a change that leaves the entry as it
    // was reads no shard (P328).
    const entry = searchEntryOf(next);
    const moved = !sameSearchEntry(searchEntryOf(stored.record), entry);
    const search = moved ? searchShardPut(await readSearchShard(next.partner, id), entry) : undefined;
    const all = [...extra, ...items, ...(search ? [search] : [])];
    try {
      if (all.length === 1) await db().send(new UpdateCommand(update));
      else await db().send(new TransactWriteCommand({ TransactItems: all }));
      return next;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      const companyFailed = reasons ? reasons[extra.length]?.Code === 'ConditionalCheckFailed' : isConditionFailure(error);
      const shardFailed = search !== undefined && reasons?.[all.length - 1]?.Code === 'ConditionalCheckFailed';
      if (!(companyFailed || shardFailed) || attempt >= SHARD_ATTEMPTS) throw error;
      if (shardFailed) await shardBackoff(attempt);
    }
  }
}

// ---------------------------------------------------------------------------------------------------
// Creation (admin tool; the interface has no create endpoint)

export interface NewCompany {
  /** An id reserved beforehand (`nextId('company')`), when something must be bound to it first (an invite's sealed link). */
  id?: number;
  partner: number;
  name: string;
  ats?: string | null;
  status?: CompanyStatus;
  partner_company_id?: string | null;
  entitlements?: string[];
  is_test?: boolean;
  contact_email?: string | null;
  /** An invite (D20): the link the record keeps and its lookup item, written in the same transaction. */
  magic_link?: { stored: StoredMagicLink; item: Record<string, unknown> };
}

/** The create's checks of a new company (a D2 error naming the field), also the seeding path's (P335). */
export async function checkNewCompany(input: NewCompany): Promise<void> {
  // As PATCH allows (`companyPatchSchema`): the name sorts in an index key, the partner's id is a lookup key.
  if (!input.name || input.name.length > 255) throw invalidField('name', 'Must be 1 to 255 characters.');
  if ((input.partner_company_id?.length ?? 0) > 255) throw invalidField('partner_company_id', 'Must be at most 255 characters.');
  if (input.ats != null && !atsBySlug(input.ats)) throw invalidField('ats', `Must be one of ${atsSlugs.join(', ')}.`);
  if (input.status && !(COMPANY_STATUSES as readonly string[]).includes(input.status)) {
    throw invalidField('status', `Must be one of ${COMPANY_STATUSES.join(', ')}.`);
  }
  const unknown = (input.entitlements ?? []).filter((e) => !isEntitlement(e));
  if (unknown.length) throw invalidField('entitlements', `Unknown entitlement ${unknown.join(', ')}.`);
  const noChannel = await missingApplyChannels(applyChannelSlugs(input.entitlements ?? []));
  if (noChannel.length) throw invalidField('entitlements', `No apply channel has the slug ${noChannel.join(', ')}.`);
}

/** A checked new company's record as the create makes it (`slug` empty: the writer picks a free one). */
export function newCompanyRecord(input: NewCompany, id: number, timestamp: string): CompanyRecord {
  return {
    id,
    name: input.name,
    slug: '',
    ats: input.ats ?? null,
    partner: input.partner,
    partner_company_id: input.partner_company_id ?? null,
    website: null,
    logo: null,
    primary_color: null,
    street: null,
    city: null,
    country: null,
    postcode: null,
    contact_name: null,
    contact_email: input.contact_email ?? null,
    contact_phone: null,
    jobs_last_synced_at: null,
    status: input.status ?? 'active',
    is_test: input.is_test ?? false,
    magic_link: null,
    entitlements: (input.entitlements ?? []) as Entitlement[],
    fallback_job: null,
    ...(input.magic_link ? { magic_link_token: input.magic_link.stored } : {}),
    created_at: timestamp,
    updated_at: timestamp,
  };
}

export async function createCompany(input: NewCompany): Promise<Company> {
  await checkNewCompany(input);
  const id = input.id ?? (await nextId('company'));
  const record = newCompanyRecord(input, id, isoNow());
  // A slug is unique: the plain one if free, else suffixed with the id (which is unique).
  for (const slug of [slugify(input.name), `${slugify(input.name)}-${id}`]) {
    record.slug = slug;
    for (let attempt = 0; ; attempt++) {
      // Its entry in the partner's search document goes in the same transaction (P179).
      const search = searchShardPut(await readSearchShard(input.partner, id), searchEntryOf(record));
      const transactItems = [
        {
          Put: {
            TableName: config().tableName,
            Item: companySlugItem(slug, id),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        {
          ConditionCheck: {
            TableName: config().tableName,
            Key: keys.partner(input.partner),
            ConditionExpression: 'attribute_exists(PK)',
          },
        },
        {
          Put: {
            TableName: config().tableName,
            Item: newCompanyItem(record),
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...(input.magic_link
          ? [{ Put: { TableName: config().tableName, Item: input.magic_link.item, ConditionExpression: 'attribute_not_exists(PK)' } }]
          : []),
        // The partner's company totals count it in the same transaction (issue 11).
        { Update: companyCounterMove(undefined, record)! },
        // Its lookup items (P241).
        ...companyLookupItems(record).map((Item) => ({ Put: { TableName: config().tableName, Item } })),
        ...(search ? [search] : []),
      ];
      try {
        await db().send(new TransactWriteCommand({ TransactItems: transactItems }));
        return toCompany(record);
      } catch (error) {
        const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
        if (reasons[1]?.Code === 'ConditionalCheckFailed') throw new NotFoundError(`Partner ${input.partner} does not exist.`);
        const shardFailed = search !== undefined && reasons[transactItems.length - 1]?.Code === 'ConditionalCheckFailed';
        if (shardFailed && attempt < SHARD_ATTEMPTS) {
          await shardBackoff(attempt);
          continue;
        }
        if (reasons[0]?.Code !== 'ConditionalCheckFailed') throw error;
        break;
      }
    }
  }
  throw new ConflictError('Could not reserve a unique slug for the company.');
}

// ---------------------------------------------------------------------------------------------------
// Changes

/** Applies a validated patch to the company `id`, which must be the company acted for. */
export async function updateCompany(id: number, patch: CompanyPatch, publicBase?: string): Promise<Company> {
  try {
    return await presentCompany(await writeCompanyChange(id, { ...(patch as Partial<CompanyRecord>), updated_at: isoNow() }), publicBase);
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError();
    throw error;
  }
}

/** Sets maintained fields (import status, connection, entitlements, …); a function computes them from the company as stored. */
export async function setCompanyFields(
  id: number,
  fields: MaintainedCompanyFields | ((current: CompanyRecord) => MaintainedCompanyFields),
  options: Pick<CompanyWriteOptions, 'stored' | 'remove'> = {},
): Promise<void> {
  if (typeof fields !== 'function' && !Object.keys(fields).length) return;
  await writeCompanyChange(id, fields, options);
}

/**
 * `hiring-admin company entitle`: adds and removes entitlements (D15); unknown names are a D2 error
 * naming `add` or `remove`, and change nothing. Returns the Company object.
 */
export async function setEntitlements(id: number, add: string[] = [], remove: string[] = []): Promise<Company> {
  const errors: Record<string, string[]> = {};
  for (const [field, names] of [
    ['add', add],
    ['remove', remove],
  ] as const) {
    const unknown = names.filter((e) => !isEntitlement(e));
    if (unknown.length)
      errors[field] = [
        `Unknown entitlement ${unknown.join(', ')}; use job_sync, candidate_sync, email_fallback, external_apply or apply:<channel>.`,
      ];
  }
  const both = add.filter((e) => remove.includes(e));
  if (both.length) (errors.remove ??= []).push(`Both added and removed: ${both.join(', ')}.`);
  if (Object.keys(errors).length) throw new ValidationError(errors);
  // `apply:<slug>` must name an apply channel (`channel create --format`), P196; removing one needs no check.
  const noChannel = await missingApplyChannels(applyChannelSlugs(add));
  if (noChannel.length)
    throw invalidField('add', `No apply channel has the slug ${noChannel.join(', ')}; create it with channel create --format.`);
  await requireCompany(id);
  // From the company as stored when it is written: two concurrent changes both take effect.
  const next = (c: CompanyRecord) => [...new Set([...c.entitlements.filter((e) => !remove.includes(e)), ...add])] as Entitlement[];
  await setCompanyFields(id, (current) => ({ entitlements: next(current), updated_at: isoNow() }));
  return toCompany((await getCompanyRecord(id))!);
}

/**
 * `hiring-admin company set-status`: moves a company to any lifecycle state (D17). Leaving `failing` or
 * reactivating clears the import failure count. A state no magic link acts on (`active`, `failing`,
 * `deactivated`, `deleted`) takes the company's link away in the same transaction (P271): the record's
 * `magic_link_token` is cleared and the lookup item revoked when it is still active, so the link answers the
 * "no longer valid" page and `magic_link` is `null`. Returns the Company object.
 */
export async function setCompanyStatus(id: number, status: string, also: StatusChangeExtras = {}): Promise<Company> {
  if (!(COMPANY_STATUSES as readonly string[]).includes(status))
    throw invalidField('status', `Must be one of ${COMPANY_STATUSES.join(', ')}.`);
  const closesLink = !linkOpenFor(status);
  for (let attempt = 0; ; attempt++) {
    const current = await requireCompany(id);
    const revoke = closesLink && current.magic_link_token ? await revokeIfActive(current.magic_link_token.hash) : [];
    const extra = [...(also.transactItems ?? []), ...revoke];
    const change = (c: CompanyRecord): MaintainedCompanyFields => {
      also.check?.(c);
      return {
        ...also.fields,
        status: status as CompanyStatus,
        updated_at: isoNow(),
        ...(status === 'active' ? { job_import_failures: 0 } : {}),
        ...(closesLink && c.magic_link_token ? { magic_link_token: null } : {}),
      };
    };
    try {
      return toCompany(await writeCompanyChange(id, change, { with: extra }));
    } catch (error) {
      // The link was spent or replaced between the read and the write: read it again.
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      if (revoke.length && attempt < 3 && reasons?.[extra.length - 1]?.Code === 'ConditionalCheckFailed') continue;
      throw error;
    }
  }
}

/**
 * What a status change may carry along (the connect page's ATS request, D20): more maintained fields of the
 * company, items written in the same transaction (for example spending the magic link, whose condition then
 * decides the whole change), and a check of the company as stored, run on every attempt of the conditional
 * write, that throws to refuse the change (the link's company must still be open to it, P271).
 */
export interface StatusChangeExtras {
  fields?: Omit<MaintainedCompanyFields, 'status' | 'updated_at'>;
  transactItems?: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
  check?: (current: CompanyRecord) => void;
}

/** Failed job import runs in a row after which the company turns `failing` (D14). */
export const FAILING_AFTER_IMPORT_FAILURES = 3;

/**
 * Counts a failed job import run; the third in a row turns an `active` company `failing` (D14). Other
 * states (deactivated, deleted, invited) are an operator's decision and stay. Returns the count.
 */
export async function recordJobImportFailure(id: number): Promise<number> {
  const out = await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.company(id),
      UpdateExpression: 'ADD job_import_failures :one',
      ConditionExpression: 'attribute_exists(PK)',
      ExpressionAttributeValues: { ':one': 1 },
      ReturnValues: 'ALL_NEW',
    }),
  );
  const failures = Number(out.Attributes?.job_import_failures ?? 1);
  if (failures >= FAILING_AFTER_IMPORT_FAILURES) await markCompanyFailing(id);
  return failures;
}

/** Turns an `active` company `failing` (repeated import failures, rejected credentials); other states stay. */
export async function markCompanyFailing(id: number): Promise<void> {
  const timestamp = isoNow();
  await writeCompanyChange(id, (c) => (c.status === 'active' ? { status: 'failing', updated_at: timestamp } : undefined)).catch(
    (error: Error) => {
      if (!(error instanceof NotFoundError)) throw error;
    },
  );
}

/**
 * Claims the company for one job import run (one run per company at a time): a conditional write on the
 * company item that holds for `seconds`, unless a claim still holds. Returns the company as claimed (the
 * write's new item, which costs no read: P328), or undefined when the claim was not taken (a claim holds, or
 * there is no such company).
 */
export async function claimJobImportRun(id: number, seconds: number): Promise<StoredCompany | undefined> {
  const current = now();
  try {
    const out = await db().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.company(id),
        UpdateExpression: 'SET job_import_running_until = :until',
        ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(job_import_running_until) OR job_import_running_until < :now)',
        ExpressionAttributeValues: {
          ':until': new Date(current.getTime() + seconds * 1000).toISOString(),
          ':now': current.toISOString(),
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return storedCompany(out.Attributes!);
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return undefined;
    throw error;
  }
}

/** Ends a job import run's claim on the company. */
export async function releaseJobImportRun(id: number): Promise<void> {
  await db().send(
    new UpdateCommand({ TableName: config().tableName, Key: keys.company(id), UpdateExpression: 'REMOVE job_import_running_until' }),
  );
}
