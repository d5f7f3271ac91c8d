/**
 * Companies: the stored record, the Company object of the interface, the list with its filters and
 * ordering, the partial update, and creation (admin only).
 */
import { createHash } from 'node:crypto';
import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, primaryKeyOf, queryAll } from '#platform/batch.js';
import { counterAdd } from '#platform/counts.js';
import { keyAttributes, partitionKeyOf, type IndexName } from '#platform/table.js';
import type { FromSchema } from 'json-schema-to-ts';
import { atsBySlug, atsSlugs } from '#companies/ats.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { applyChannelSlugs, isEntitlement, type Entitlement } from '#companies/entitlements.js';
import { missingApplyChannels } from '#companies/apply-channels.js';
import { ConflictError, NotFoundError, ValidationError, invalidField, isConditionFailure } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { compactCreatedSort, indexKeys, keys } from '#platform/keys.js';
import { booleanParam, enumParams, stringParam, type QueryParams } from '#platform/query-params.js';
import { validator } from '#platform/field-errors.js';
import { loadCompanyPatchValidator } from '#generated/companies-validators.js';
import { magicLinkUrl, type StoredMagicLink } from '#companies/magic-links.js';
import { readSearchShard, searchShardPut, type SearchEntry } from '#companies/company-search.js';

export const COMPANY_STATUSES = ['invited', 'requested', 'active', 'failing', 'deactivated', 'deleted'] as const;
export type CompanyStatus = (typeof COMPANY_STATUSES)[number];

/** The stored company: the writable fields plus what the service maintains. */
export interface CompanyRecord {
  id: number;
  name: string;
  slug: string;
  ats: string | null;
  partner: number;
  partner_company_id: string | null;
  website: string | null;
  logo: string | null;
  primary_color: string | null;
  street: string | null;
  city: string | null;
  country: string | null;
  postcode: string | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  jobs_last_synced_at: string | null;
  status: CompanyStatus;
  is_test: boolean;
  magic_link: string | null;
  entitlements: Entitlement[];
  /** Job used when the applied-for job is no longer published (D12). */
  fallback_job: number | null;
  /** Which ATS the stored credentials were checked against, and when (D18); absent when not connected. */
  ats_connection?: { ats: string; connected_at: string } | null;
  /** Failed job import runs in a row (D14: 3 turn the company `failing`). */
  job_import_failures?: number;
  /** The active magic link, sealed, with its hash and expiry (D20); never the token in plain text. */
  magic_link_token?: StoredMagicLink | null;
  created_at: string;
  updated_at: string;
}

/** The Company object of the interface (`toCompany` writes it in the spec's field order). */
export type Company = Omit<
  CompanyRecord,
  'entitlements' | 'fallback_job' | 'ats_connection' | 'job_import_failures' | 'magic_link_token'
> & {
  ats_name: string | null;
  job_sync_active: boolean;
  candidate_sync_active: boolean;
};

/**
 * D15: whether the company's ATS is connected: it has a connector, and either needs no credentials
 * (sandbox) or has credentials checked against that same ATS (a later change of `ats` disconnects).
 */
export function atsConnected(company: CompanyRecord): boolean {
  const integration = atsBySlug(company.ats);
  if (!integration?.connector) return false;
  return !integration.credentials || company.ats_connection?.ats === company.ats;
}

/** D15: a sync is active when the company is entitled to it and its ATS is connected. */
export function syncActive(company: CompanyRecord, entitlement: 'job_sync' | 'candidate_sync'): boolean {
  return company.entitlements.includes(entitlement) && atsConnected(company);
}

/**
 * D17: which lifecycle states deliver. `active` and `failing` companies sync and import; `invited` and
 * `requested` ones accept applications but wait until they are active; `deactivated` and `deleted` ones wait.
 */
export function deliveryAllowed(company: Pick<CompanyRecord, 'status'>): boolean {
  return company.status === 'active' || company.status === 'failing';
}

/**
 * The Company object. `magic_link` is what the caller opened (`presentCompany`); `null` without it, since the
 * stored link is sealed and opening it is asynchronous.
 */
export function toCompany(c: CompanyRecord, magicLink: string | null = null): Company {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    ats: c.ats,
    ats_name: atsBySlug(c.ats)?.name ?? null,
    partner: c.partner,
    partner_company_id: c.partner_company_id,
    website: c.website,
    logo: c.logo,
    primary_color: c.primary_color,
    street: c.street,
    city: c.city,
    country: c.country,
    postcode: c.postcode,
    job_sync_active: syncActive(c, 'job_sync'),
    candidate_sync_active: syncActive(c, 'candidate_sync'),
    contact_name: c.contact_name,
    contact_email: c.contact_email,
    contact_phone: c.contact_phone,
    jobs_last_synced_at: c.jobs_last_synced_at,
    status: c.status,
    is_test: c.is_test,
    magic_link: magicLink,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** The Company object with its active magic link opened (D20) on `base`, the service's public address. */
export async function presentCompany(c: CompanyRecord, base: string | undefined): Promise<Company> {
  return toCompany(c, await magicLinkUrl(c.id, c.magic_link_token, base));
}

/** The record of a company item: without its key, index and bookkeeping attributes. */
export function fromItem(item: Record<string, unknown>): CompanyRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as CompanyRecord;
}

/** Reads one company by id (strongly consistent: it decides access). */
export async function getCompanyRecord(id: number): Promise<CompanyRecord | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.company(id), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

// ---------------------------------------------------------------------------------------------------
// List

export const COMPANY_FILTERS = [
  'name',
  'ats',
  'partner_company_id',
  'status',
  'search',
  'candidate_sync_active',
  'job_sync_active',
  'ordering',
] as const;
const ORDERING_FIELDS = ['name', 'status', 'created_at', 'updated_at'] as const;

export interface CompanyFilter {
  name?: string;
  ats?: string;
  partner_company_id?: string;
  status: CompanyStatus[];
  search?: string;
  candidate_sync_active?: boolean;
  job_sync_active?: boolean;
  ordering: { field: (typeof ORDERING_FIELDS)[number]; descending: boolean }[];
}

export function parseCompanyFilter(q: QueryParams): CompanyFilter {
  const ordering: CompanyFilter['ordering'] = [];
  for (const term of (stringParam(q, 'ordering') ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean)) {
    const descending = term.startsWith('-');
    const field = descending ? term.slice(1) : term;
    // D6: an unknown ordering field is ignored.
    if ((ORDERING_FIELDS as readonly string[]).includes(field))
      ordering.push({ field: field as CompanyFilter['ordering'][number]['field'], descending });
  }
  if (!ordering.length) ordering.push({ field: 'created_at', descending: true });
  return {
    name: stringParam(q, 'name'),
    ats: stringParam(q, 'ats'),
    partner_company_id: stringParam(q, 'partner_company_id'),
    status: enumParams(q, 'status', COMPANY_STATUSES),
    search: stringParam(q, 'search'),
    candidate_sync_active: booleanParam(q, 'candidate_sync_active'),
    job_sync_active: booleanParam(q, 'job_sync_active'),
    ordering,
  };
}

const includes = (haystack: string | null, needle: string) => (haystack ?? '').toLowerCase().includes(needle.toLowerCase());

export function matchesCompany(c: CompanyRecord, f: CompanyFilter): boolean {
  if (f.name !== undefined && !includes(c.name, f.name)) return false;
  if (f.ats !== undefined && c.ats !== f.ats) return false;
  if (f.partner_company_id !== undefined && c.partner_company_id !== f.partner_company_id) return false;
  if (f.status.length && !f.status.includes(c.status)) return false;
  if (f.search !== undefined && ![c.name, c.ats, c.partner_company_id].some((v) => includes(v, f.search!))) return false;
  if (f.candidate_sync_active !== undefined && syncActive(c, 'candidate_sync') !== f.candidate_sync_active) return false;
  if (f.job_sync_active !== undefined && syncActive(c, 'job_sync') !== f.job_sync_active) return false;
  return true;
}

/** The list order; also applied to slim index entries, which carry only the ordering fields (name lower-cased). */
export type SortableCompany = Pick<CompanyRecord, 'id' | 'name' | 'status' | 'created_at' | 'updated_at'>;

export function compareCompanies(ordering: CompanyFilter['ordering']) {
  return (a: SortableCompany, b: SortableCompany): number => {
    for (const { field, descending } of ordering) {
      const x = field === 'name' ? a.name.toLowerCase() : a[field];
      const y = field === 'name' ? b.name.toLowerCase() : b[field];
      if (x !== y) return (x < y ? -1 : 1) * (descending ? -1 : 1);
    }
    // Ties break by id in the direction of the first ordering term, so pages never overlap.
    return (a.id - b.id) * (ordering[0].descending ? -1 : 1);
  };
}

export type CompanyScope = { partnerId: number; companyId?: number };

// ---------------------------------------------------------------------------------------------------
// Partial update

const nullableString = { type: ['string', 'null'], maxLength: 1000 } as const;
const nullableUri = { type: ['string', 'null'], format: 'http-url', maxLength: 2000 } as const;

export const companyPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    ats: { type: 'string', enum: atsSlugs },
    partner_company_id: nullableString,
    website: nullableUri,
    logo: nullableUri,
    primary_color: { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' },
    street: nullableString,
    city: nullableString,
    country: nullableString,
    postcode: nullableString,
    contact_name: nullableString,
    contact_email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
    contact_phone: nullableString,
  },
} as const;

export type CompanyPatch = FromSchema<typeof companyPatchSchema>;

/** Fields of the Company object a client cannot set; sent back unchanged they are ignored, not refused. */
export const COMPANY_READ_ONLY_FIELDS = [
  'id',
  'slug',
  'ats_name',
  'partner',
  'job_sync_active',
  'candidate_sync_active',
  'jobs_last_synced_at',
  'status',
  'is_test',
  'magic_link',
  'created_at',
  'updated_at',
] as const;

// Pure: a bundle whose route never validates this leaves the generated validator out (tree-shaking).
const assertCompanyPatch = /* @__PURE__ */ validator<CompanyPatch>(loadCompanyPatchValidator);

export function parseCompanyPatch(body: unknown): CompanyPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField('body', 'Must be a JSON object.');
  const writable = Object.fromEntries(
    Object.entries(body).filter(([field]) => !(COMPANY_READ_ONLY_FIELDS as readonly string[]).includes(field)),
  );
  return assertCompanyPatch(writable);
}

/** Applies a validated patch to the company `id`, which must be the company acted for. */
export async function updateCompany(id: number, patch: CompanyPatch, publicBase?: string): Promise<Company> {
  try {
    return await presentCompany(await writeCompanyChange(id, { ...(patch as Partial<CompanyRecord>), updated_at: isoNow() }), publicBase);
  } catch (error) {
    if (error instanceof NotFoundError) throw new NotFoundError();
    throw error;
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

export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'company';
}

export async function createCompany(input: NewCompany): Promise<Company> {
  if (input.ats != null && !atsBySlug(input.ats)) throw invalidField('ats', `Must be one of ${atsSlugs.join(', ')}.`);
  if (input.status && !(COMPANY_STATUSES as readonly string[]).includes(input.status)) {
    throw invalidField('status', `Must be one of ${COMPANY_STATUSES.join(', ')}.`);
  }
  const entitlements = input.entitlements ?? [];
  const unknown = entitlements.filter((e) => !isEntitlement(e));
  if (unknown.length) throw invalidField('entitlements', `Unknown entitlement ${unknown.join(', ')}.`);
  const noChannel = await missingApplyChannels(applyChannelSlugs(entitlements));
  if (noChannel.length) throw invalidField('entitlements', `No apply channel has the slug ${noChannel.join(', ')}.`);
  const id = input.id ?? (await nextId('company'));
  const now = isoNow();
  const record: CompanyRecord = {
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
    entitlements: entitlements as Entitlement[],
    fallback_job: null,
    ...(input.magic_link ? { magic_link_token: input.magic_link.stored } : {}),
    created_at: now,
    updated_at: now,
  };
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
            Item: { ...keys.companySlug(slug), company: id },
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
            Item: {
              ...keys.company(id),
              GSI1PK: indexKeys.partnerCompanies(input.partner),
              GSI1SK: indexKeys.createdSort(now, id),
              KSK: compactCreatedSort(indexKeys.createdSort(now, id)),
              GSI3PK: indexKeys.allCompanies(),
              ...companyIndexAttributes(record),
              ...record,
            },
            ConditionExpression: 'attribute_not_exists(PK)',
          },
        },
        ...(input.magic_link
          ? [{ Put: { TableName: config().tableName, Item: input.magic_link.item, ConditionExpression: 'attribute_not_exists(PK)' } }]
          : []),
        // The partner's company totals count it in the same transaction (issue 11).
        { Update: companyCounterMove(undefined, record)! },
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

/** Sets fields the service maintains (import status, fallback job, connection, entitlements), with the index attributes and counters. */
export async function setCompanyFields(id: number, fields: MaintainedCompanyFields): Promise<void> {
  if (!Object.keys(fields).length) return;
  await writeCompanyChange(id, fields);
}

/** The company or a 404 naming it (admin commands). */
export async function requireCompany(id: number): Promise<CompanyRecord> {
  const company = await getCompanyRecord(id);
  if (!company) throw new NotFoundError(`Company ${id} does not exist.`);
  return company;
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
  const company = await requireCompany(id);
  const next = [...new Set([...company.entitlements.filter((e) => !remove.includes(e)), ...add])] as Entitlement[];
  await setCompanyFields(id, { entitlements: next, updated_at: isoNow() });
  return toCompany((await getCompanyRecord(id))!);
}

/**
 * `hiring-admin company set-status`: moves a company to any lifecycle state (D17). Leaving `failing` or
 * reactivating clears the import failure count. Returns the Company object.
 */
export async function setCompanyStatus(id: number, status: string, also: StatusChangeExtras = {}): Promise<Company> {
  if (!(COMPANY_STATUSES as readonly string[]).includes(status))
    throw invalidField('status', `Must be one of ${COMPANY_STATUSES.join(', ')}.`);
  await requireCompany(id);
  const fields: MaintainedCompanyFields = {
    ...also.fields,
    status: status as CompanyStatus,
    updated_at: isoNow(),
    ...(status === 'active' ? { job_import_failures: 0 } : {}),
  };
  return toCompany(await writeCompanyChange(id, fields, { with: also.transactItems ?? [] }));
}

/**
 * What a status change may carry along (the connect page's ATS request, D20): more maintained fields of the
 * company, and items written in the same transaction (for example spending the magic link, whose condition
 * then decides the whole change).
 */
export interface StatusChangeExtras {
  fields?: Omit<MaintainedCompanyFields, 'status' | 'updated_at'>;
  transactItems?: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>;
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

/** Every company (GSI3 `COMPANIES`), for the scheduled job import's fan-out. */
export async function allCompanies(): Promise<CompanyRecord[]> {
  const entries = await queryAll({
    IndexName: 'GSI3',
    KeyConditionExpression: 'GSI3PK = :pk',
    ExpressionAttributeValues: { ':pk': indexKeys.allCompanies() },
  });
  // GSI3 holds keys only (P195): the companies are read by key, 100 a call.
  const found = await batchGetItems(entries.map((e) => ({ PK: String(e.PK), SK: String(e.SK) })));
  return entries.flatMap((e) => {
    const item = found.get(primaryKeyOf(e as { PK: unknown; SK: unknown }));
    return item ? [fromItem(item)] : [];
  });
}

// ---------------------------------------------------------------------------------------------------
// Index attributes and counters (issue 11, docs/access-patterns.md "Companies"). One place computes a
// company item's list-index attributes and its share of the partner's counters from the record, and every
// writer goes through `writeCompanyChange` (or, for a new company, `companyIndexAttributes` and
// `companyCounterMove` inside the create transaction), so that no caller has to remember them.

/** The layout of a company item's index attributes, stored on every item (`index_version`); there is one (P190). */
export const COMPANY_INDEX_VERSION = 1;

/** Exact filters of the company list, each on a keys-only slot index (partition `<partner's companies>#<filter>=<value>`). */
export const COMPANY_FILTER_SLOTS = {
  status: 'SLOT1',
  ats: 'SLOT2',
  partner_company_id: 'SLOT3',
  candidate_sync_active: 'SLOT4',
  job_sync_active: 'SLOT5',
} as const satisfies Record<string, IndexName>;
export type CompanySlotFilter = keyof typeof COMPANY_FILTER_SLOTS;

/** Slot filters whose per-value totals sit on the partner's company counter item (bounded values). */
export const COMPANY_TOTALS_FILTERS = ['status', 'ats', 'candidate_sync_active', 'job_sync_active'] as const;

/**
 * Orderings other than `created_at` (which is GSI1's own sort key): a keys-only index of the partner's
 * company collection whose sort key is the list order, ties broken by id.
 */
export const COMPANY_ORDER_INDEXES = { name: 'DATE1', updated_at: 'DATE2', status: 'GSI4' } as const satisfies Record<string, IndexName>;

/** Bytes of the lower-case name the name ordering sorts by (a GSI sort key holds at most 1 KB; ≥ 255 characters of a name in a script of 1–3 bytes a character). */
const NAME_SORT_BYTES = 900;
/** Base-36 digits of the id that breaks ties in the orderings (up to 7.8 × 10^10). */
const NAME_SORT_ID_WIDTH = 7;
/** Ends the name in the name ordering's sort key: below every unit of a name, so a prefix sorts first. */
const NAME_SORT_END = '\u0001\u0001';

/** Separates the fields of the `search` haystack; a search term containing it is answered without the index. */
export const SEARCH_SEPARATOR = '\n';

const INTERNAL_ATTRIBUTES = /* @__PURE__ */ companyInternalAttributes();
function companyInternalAttributes(): string[] {
  return [...keyAttributes(), 'title_lc', 'city_lc', 'candidate_sync_active', 'job_sync_active', 'index_version', 'rev'];
}

/** The partition of one exact filter value among a partner's companies (a long value is keyed by its hash). */
export function companySlot(partnerId: number, filter: CompanySlotFilter, value: string | boolean): string {
  const text = String(value);
  const keyed = Buffer.byteLength(text) > 512 ? `sha256:${createHash('sha256').update(text).digest('hex')}` : text;
  return indexKeys.filterSlot(indexKeys.partnerCompanies(partnerId), filter, keyed);
}

/** The value a company has for a slot filter (derived for the two sync flags, D15); undefined when it has none. */
export function companyFilterValue(c: CompanyRecord, filter: CompanySlotFilter): string | boolean | undefined {
  if (filter === 'candidate_sync_active') return syncActive(c, 'candidate_sync');
  if (filter === 'job_sync_active') return syncActive(c, 'job_sync');
  return c[filter] ?? undefined;
}

/**
 * The name ordering's sort key (P182): the lower-case name in a compact form whose UTF-8 byte order (DynamoDB's)
 * is JS string order, i.e. the order of UTF-16 code units: a unit from U+0002 to U+D7FF stands for itself (in
 * that range the two orders agree); U+0000–U+0001 and U+D800–U+FFFF (surrogates sort below U+E000 in UTF-16,
 * above it as UTF-8) become two characters that sort where the unit belongs. Then `NAME_SORT_END` and the id in
 * base 36. A name of 20 ASCII characters makes a key of 29 bytes (97 as the UTF-16 hex of P108), so skipping
 * by name reads ~1 unit per 100 companies instead of ~1.9.
 */
export function companyNameSort(name: string, id: number): string {
  const lower = name.toLowerCase();
  let key = '';
  let bytes = 0;
  for (let i = 0; i < lower.length; i++) {
    const u = lower.charCodeAt(i);
    const [unit, size] =
      u < 0x02
        ? ['\u0001' + String.fromCharCode(0x30 + u), 2]
        : u < 0xd800
          ? [lower[i], u < 0x80 ? 1 : u < 0x800 ? 2 : 3]
          : [String.fromCharCode(0xe000 + ((u - 0xd800) >> 6), 0xe000 + ((u - 0xd800) & 0x3f)), 6];
    if (bytes + size > NAME_SORT_BYTES) break;
    key += unit;
    bytes += size;
  }
  return `${key}${NAME_SORT_END}${compactCompanyId(id)}`;
}

/** The search haystack: name, ATS slug and partner company id, lower case, one separator apart. */
export function companySearchText(c: Pick<CompanyRecord, 'name' | 'ats' | 'partner_company_id'>): string {
  return [c.name, c.ats ?? '', c.partner_company_id ?? ''].map((v) => v.toLowerCase()).join(SEARCH_SEPARATOR);
}

/**
 * The sort keys of the name, `updated_at` and `status` orderings (DATE1, DATE2, GSI4), compact (P182): a skip
 * reads them as keys, so their size is its cost. `updated_at` as the compact created sort (base-36 ms and id,
 * as KSK), the status with the id in base 36.
 */
export function companySortKeys(c: Pick<CompanyRecord, 'id' | 'name' | 'updated_at' | 'status'>): {
  D1SK: string;
  D2SK: string;
  GSI4SK: string;
} {
  const updated = indexKeys.createdSort(c.updated_at, c.id);
  return {
    D1SK: companyNameSort(c.name, c.id),
    D2SK: compactCreatedSort(updated) ?? updated,
    GSI4SK: `${c.status}#${compactCompanyId(c.id)}`,
  };
}

/** A company id in an ordering's sort key: base 36, fixed width (order-preserving up to 7.8 × 10^10). */
const compactCompanyId = (id: number) => id.toString(36).padStart(NAME_SORT_ID_WIDTH, '0');

/** A company's entry in its partner's search document (P179): what the contains filters and `status` read. */
export function searchEntryOf(c: CompanyRecord): SearchEntry {
  return [c.id, c.status, c.name.toLowerCase(), companySearchText(c)];
}

/** A shard another writer changed since it was read: wait a little (jittered), then read again. */
const shardBackoff = (attempt: number) => new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * (attempt + 1)));
const SHARD_ATTEMPTS = 8;

/** Every list-index attribute of a company item, computed from the record (undefined: the item has none). */
export function companyIndexAttributes(c: CompanyRecord): Record<string, string | number | boolean | undefined> {
  const slots: Record<string, string | undefined> = {};
  for (const [filter, slot] of Object.entries(COMPANY_FILTER_SLOTS) as [CompanySlotFilter, IndexName][]) {
    const value = companyFilterValue(c, filter);
    slots[partitionKeyOf(slot)] = value === undefined ? undefined : companySlot(c.partner, filter, value);
  }
  return {
    ...slots,
    ...companySortKeys(c),
    GSI4PK: indexKeys.partnerCompanies(c.partner),
    // The partner's companies on SLIM, which only jobs and companies carry (P199).
    SPK: indexKeys.partnerCompanies(c.partner),
    title_lc: c.name.toLowerCase(),
    city_lc: companySearchText(c),
    candidate_sync_active: syncActive(c, 'candidate_sync'),
    job_sync_active: syncActive(c, 'job_sync'),
    index_version: COMPANY_INDEX_VERSION,
  };
}

/** The counter attributes one company adds to its partner's company counter item. */
function companyCounts(c: CompanyRecord): Map<string, number> {
  const counts = new Map<string, number>([['count', 1]]);
  for (const filter of COMPANY_TOTALS_FILTERS) {
    const value = companyFilterValue(c, filter);
    if (value !== undefined) counts.set(`${filter}#${String(value)}`, 1);
  }
  return counts;
}

/**
 * The Update of the partner's company counter item that a change from `old` (undefined: a new company, not
 * counted yet) to `next` needs; undefined when no total changes.
 */
export function companyCounterMove(old: CompanyRecord | undefined, next: CompanyRecord) {
  const delta = companyCounts(next);
  if (old) for (const [name, n] of companyCounts(old)) delta.set(name, (delta.get(name) ?? 0) - n);
  for (const [name, n] of delta) if (n === 0) delta.delete(name);
  return delta.size ? counterAdd(keys.countOf(indexKeys.partnerCompanies(next.partner)), delta) : undefined;
}

/** A company item as stored: the record and its revision (bumped by every change). */
export interface StoredCompany {
  record: CompanyRecord;
  rev: number;
}

export function storedCompany(item: Record<string, unknown>): StoredCompany {
  return { record: fromItem(item), rev: Number(item.rev ?? 0) };
}

/**
 * The transaction items of one change to a stored company: the Update that sets the changed fields, the
 * index attributes of the new record and the next revision (conditional on the revision read, so two
 * writers never move the counters from the same old state), and the counter Update when a total moves.
 */
export function companyChangeItems(stored: StoredCompany, fields: MaintainedCompanyFields | Partial<CompanyRecord>) {
  const next: CompanyRecord = { ...stored.record, ...fields };
  const counter = companyCounterMove(stored.record, next);
  const names: Record<string, string> = { '#rev': 'rev' };
  const values: Record<string, unknown> = { ':rev': stored.rev + 1 };
  const sets = ['#rev = :rev'];
  const removes: string[] = [];
  [...Object.entries(fields), ...Object.entries(companyIndexAttributes(next))].forEach(([name, value], i) => {
    names[`#f${i}`] = name;
    if (value === undefined) return removes.push(`#f${i}`);
    values[`:f${i}`] = value;
    sets.push(`#f${i} = :f${i}`);
  });
  if (stored.rev) values[':oldrev'] = stored.rev;
  const update = {
    TableName: config().tableName,
    Key: keys.company(next.id),
    UpdateExpression: `SET ${sets.join(', ')}${removes.length ? ` REMOVE ${removes.join(', ')}` : ''}`,
    ConditionExpression: stored.rev ? '#rev = :oldrev' : 'attribute_exists(PK) AND attribute_not_exists(#rev)',
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  };
  return { next, items: [{ Update: update }, ...(counter ? [{ Update: counter }] : [])] };
}

async function readStoredCompany(id: number): Promise<StoredCompany | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.company(id), ConsistentRead: true }));
  return out.Item ? storedCompany(out.Item) : undefined;
}

/** A change to one company: the fields to set, or a function of the current record (undefined: no change). */
export type CompanyChange = MaintainedCompanyFields | Partial<CompanyRecord> | ((c: CompanyRecord) => Partial<CompanyRecord> | undefined);

/**
 * The one writer of an existing company: reads it, applies the change with its index attributes and counter
 * moves (plus `with`'s items, such as the sealed credentials, in the same transaction), and tries again from
 * a fresh read when another writer changed the company in between. Returns the new record.
 */
export async function writeCompanyChange(
  id: number,
  change: CompanyChange,
  options: { with?: Record<string, unknown>[] } = {},
): Promise<CompanyRecord> {
  for (let attempt = 0; ; attempt++) {
    const stored = await readStoredCompany(id);
    if (!stored) throw new NotFoundError(`Company ${id} does not exist.`);
    const fields = typeof change === 'function' ? change(stored.record) : change;
    if (!fields) return stored.record;
    const { next, items } = companyChangeItems(stored, fields);
    const extra = options.with ?? [];
    // Its search entry follows in the same transaction when the change moves it (P179).
    const search = searchShardPut(await readSearchShard(next.partner, id), searchEntryOf(next));
    const all = [...extra, ...items, ...(search ? [search] : [])];
    try {
      if (all.length === 1) await db().send(new UpdateCommand(items[0].Update));
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
