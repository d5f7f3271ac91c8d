/**
 * @entity-store: one of the modules that may name index attributes (test/unit/architecture.test.ts).
 * The company item's layout (issue 11, issue 22 item 3; docs/access-patterns.md "Companies"): one place
 * derives a company item's keys, its list-index attributes (the filter slots, the ordering indexes' sort keys)
 * and its share of the partner's counters from the record, and strips them again
 * (`fromItem`). Pure: the writes that use it are `company-store.ts`'s, the list that reads the indexes
 * `company-list.ts`'s.
 */
import { createHash } from 'node:crypto';
import { counterAdd } from '#platform/counts.js';
import { compactCreatedSort, indexKeys, keys } from '#platform/keys.js';
import { exactSource, type CollectionQuery } from '#platform/paged-query.js';
import { keyAttributes, type IndexName } from '#platform/table.js';
import { defineEntity, type IndexUse, type Part, type UpdateParts } from '#platform/entities.js';
import {
  COMPANY_FILTER_SLOTS,
  COMPANY_LOOKUPS,
  COMPANY_TOTALS_FILTERS,
  type CompanySlotFilter,
  type CompanySlotName,
} from '#companies/company-filters.js';
import { syncActive, type CompanyRecord } from '#companies/company-schema.js';

/** The layout of a company item's index attributes, stored on every item (`index_version`); there is one (P190). */
export const COMPANY_INDEX_VERSION = 1;

/**
 * Orderings other than `created_at` (which is COLLECTION's own sort key): a keys-only index of the partner's
 * company collection whose sort key is the list order, ties broken by id.
 */
export const COMPANY_ORDER_INDEXES = { name: 'APPLIED', updated_at: 'UPDATED', status: 'DUE' } as const satisfies Record<string, IndexName>;

/** Bytes of the lower-case name the name ordering sorts by (a GSI sort key holds at most 1 KB; ≥ 255 characters of a name in a script of 1–3 bytes a character). */
const NAME_SORT_BYTES = 900;
/** Base-36 digits of the id that breaks ties in the orderings (up to 7.8 × 10^10). */
const NAME_SORT_ID_WIDTH = 7;
/** Ends the name in the name ordering's sort key: below every unit of a name, so a prefix sorts first. */
const NAME_SORT_END = '\u0001\u0001';

const INTERNAL_ATTRIBUTES = /* @__PURE__ */ companyInternalAttributes();
function companyInternalAttributes(): string[] {
  return [...keyAttributes(), 'candidate_sync_active', 'job_sync_active', 'index_version', 'rev'];
}

/** The record of a company item: without its key, index and bookkeeping attributes. */
export function fromItem(item: Record<string, unknown>): CompanyRecord {
  const record = { ...item };
  for (const name of INTERNAL_ATTRIBUTES) delete record[name];
  return record as unknown as CompanyRecord;
}

/**
 * The partition of one exact filter value among a partner's companies (a long value is keyed by its hash).
 * The exact filters' slots, lookup items and counter totals are declared in `company-filters.ts` (P243). A
 * lookup filter's items (P241) are base-table items in the partition its slot would have, sorted by the
 * company's `GSI1SK`, written, moved and deleted with the company.
 */
export function companySlot(partnerId: number, filter: CompanySlotFilter, value: string | boolean): string {
  const text = String(value);
  const keyed = Buffer.byteLength(text) > 512 ? `sha256:${createHash('sha256').update(text).digest('hex')}` : text;
  return indexKeys.filterSlot(indexKeys.partnerCompanies(partnerId), filter, keyed);
}

/** Where a list reads one filter value's companies, in creation order: its slot, or its lookup items. */
export function companySource(
  partnerId: number,
  filter: CompanySlotFilter,
  value: string | boolean,
): Pick<CollectionQuery, 'index' | 'partitionValue' | 'lookup'> {
  return exactSource(companySlot(partnerId, filter, value), COMPANY_FILTER_SLOTS.get(filter as CompanySlotName), filter, keys.company);
}

/** A company's lookup items (P241): one per lookup filter it has a value of. */
export function companyLookupItems(c: CompanyRecord): Record<string, unknown>[] {
  return COMPANY_LOOKUPS.flatMap((filter) => {
    const value = companyFilterValue(c, filter);
    return value === undefined ? [] : [keys.lookup(companySlot(c.partner, filter, value), indexKeys.collectionSort(c.created_at, c.id))];
  });
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

/** A company id in an ordering's sort key: base 36, fixed width (order-preserving up to 7.8 × 10^10). */
const compactCompanyId = (id: number) => id.toString(36).padStart(NAME_SORT_ID_WIDTH, '0');

/** The fields the two sync flags are derived from (D15: entitled, and the ATS connected). */
const SYNC_FLAG_FIELDS = ['entitlements', 'ats', 'ats_connection'] as const satisfies readonly (keyof CompanyRecord)[];

const partnerCompanies: Part<CompanyRecord> = { fields: ['partner'], build: (c) => indexKeys.partnerCompanies(c.partner) };
const collectionSort: Part<CompanyRecord> = { fields: ['created_at', 'id'], build: (c) => indexKeys.collectionSort(c.created_at, c.id) };
const syncFlag = (entitlement: 'candidate_sync' | 'job_sync'): Part<CompanyRecord> => ({
  fields: SYNC_FLAG_FIELDS,
  build: (c) => syncActive(c, entitlement),
});

/**
 * The company entity (P290): every index a company item is in and what each key is built from. The orderings
 * other than `created_at` (`COMPANY_ORDER_INDEXES`) have compact sort keys (P182), since a skip reads them as
 * keys: the name (`companyNameSort`), `updated_at` as the compact created sort, the status with the id in base 36.
 */
export const COMPANY_ENTITY = defineEntity<CompanyRecord>({
  entity: 'company',
  indexes: [
    { pattern: "the partner's companies", index: 'COLLECTION', pk: partnerCompanies, sk: collectionSort },
    { pattern: 'every company', index: 'LOOKUP', pk: { fields: [], build: () => indexKeys.allCompanies() }, sk: collectionSort },
    ...[...COMPANY_FILTER_SLOTS].map(([filter, index]): IndexUse<CompanyRecord> => ({
      pattern: filter,
      index,
      pk: {
        fields: filter === 'candidate_sync_active' || filter === 'job_sync_active' ? ['partner', ...SYNC_FLAG_FIELDS] : ['partner', filter],
        build: (c) => {
          const value = companyFilterValue(c, filter);
          return value === undefined ? undefined : companySlot(c.partner, filter, value);
        },
      },
      sk: collectionSort,
    })),
    {
      pattern: 'name',
      index: COMPANY_ORDER_INDEXES.name,
      pk: partnerCompanies,
      sk: { fields: ['name', 'id'], build: (c) => companyNameSort(c.name, c.id) },
    },
    {
      pattern: 'updated_at',
      index: COMPANY_ORDER_INDEXES.updated_at,
      pk: partnerCompanies,
      sk: {
        fields: ['updated_at', 'id'],
        build: (c) => {
          const updated = indexKeys.createdSort(c.updated_at, c.id);
          return compactCreatedSort(updated) ?? updated;
        },
      },
    },
    {
      pattern: 'status',
      index: COMPANY_ORDER_INDEXES.status,
      pk: partnerCompanies,
      sk: { fields: ['status', 'id'], build: (c) => `${c.status}#${compactCompanyId(c.id)}` },
    },
  ],
  attributes: { candidate_sync_active: syncFlag('candidate_sync'), job_sync_active: syncFlag('job_sync') },
});

/**
 * A change of `fields` to a stored company whose record becomes `next`: the field writes and every attribute
 * built from one of them (the whole record is known).
 */
export function companyChangeParts(next: CompanyRecord, fields: Readonly<Record<string, unknown>>): UpdateParts {
  return COMPANY_ENTITY.updateParts(next, fields, { complete: true });
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

/**
 * The Update of a partner's company counter item that counts new companies of that partner at once (the batched
 * seeding path, P335): the sum of what each one's create adds (`companyCounterMove(undefined, c)`).
 */
export function newCompaniesCounterAdd(partnerId: number, companies: readonly CompanyRecord[]) {
  const sum = new Map<string, number>();
  for (const c of companies) for (const [name, n] of companyCounts(c)) sum.set(name, (sum.get(name) ?? 0) + n);
  return counterAdd(keys.countOf(indexKeys.partnerCompanies(partnerId)), sum);
}

/** The slug a company's name makes (the create suffixes it with the id when it is taken). */
export function slugify(name: string): string {
  const slug = name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
  return slug || 'company';
}

/** A company's slug item: slugs are unique (the create puts it on condition that it is new). */
export const companySlugItem = (slug: string, id: number) => ({ ...keys.companySlug(slug), company: id });

/**
 * A new company's item: its key, every index attribute the entity declares (its place in the partner's
 * collection, among all companies, in the filter slots and the orderings), and the record.
 */
export function newCompanyItem(c: CompanyRecord): Record<string, unknown> {
  return { ...keys.company(c.id), ...COMPANY_ENTITY.item(c), index_version: COMPANY_INDEX_VERSION, ...c };
}
