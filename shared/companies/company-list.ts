/**
 * The company list (GET /companies/) on indexes, counters and cursors (issue 11, docs/access-patterns.md,
 * "Companies"): a page costs the page, not the partner's whole company list.
 *
 * - `created_at` ordering (the default, either way): the partner's collection (COLLECTION), or the slot of the most
 *   selective exact filter, walked with a cursor like the jobs list;
 * - `name`, `status`, `updated_at` ordering: a keys-only index whose sort key is that order (APPLIED, DUE,
 *   UPDATED); a filter matching many companies is applied in memory while walking it, a filter matching few is
 *   read whole (its slot) and sorted in memory;
 * - `name` and `search` (contains): the slim projection (lower-case name and search text, status, dates)
 *   scanned once, sorted in memory, and only the page's items read;
 * - totals: the partner's counter item for the unfiltered list and single exact filters.
 * - several `status` values: their counters count; the order's index is walked, or few matches are found
 *   in their slots (P178).
 * What none of these serve (several `ordering` terms, a search term containing a line break, a company-scoped
 * key) reads the candidates whole, as before. The filters and the order themselves (`parseCompanyFilter`,
 * `matchesCompany`, `compareCompanies`: the spec's semantics, which every plan answers) are defined here too.
 */
import { batchGetItems, primaryKeyOf, queryAll, queryItemsByKeys } from '#platform/batch.js';
import { counterReader } from '#platform/counts.js';
import { createdAtOfCollectionSort, indexKeys, keys } from '#platform/keys.js';
import { sortKeyOf } from '#platform/table.js';
import { readKeys, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, countPartition, type SourceCandidate } from '#platform/paged-sources.js';
import { envelope, makeCursor, pageRequest, type LinkContext, type PageEnvelope, type PageRequest } from '#platform/pagination.js';
import { booleanParam, enumParams, stringParam, type QueryParams } from '#platform/query-params.js';
import { SEARCH_SEPARATOR, readSearchDocument } from '#companies/company-search.js';
import {
  COMPANY_FILTER_SLOTS,
  COMPANY_ORDER_INDEXES,
  COMPANY_TOTALS_FILTERS,
  companySlot,
  companySource,
  fromItem,
  type CompanySlotFilter,
} from '#companies/company-layout.js';
import { getCompanyRecord } from '#companies/company-store.js';
import {
  COMPANY_STATUSES,
  presentCompany,
  syncActive,
  type Company,
  type CompanyRecord,
  type CompanyStatus,
} from '#companies/company-schema.js';

// ---------------------------------------------------------------------------------------------------
// Filters and order: the spec's semantics, which the index plans below answer

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
// The list on indexes

/**
 * A filter under a non-created ordering walks the ordering index when at least this share of the partner's
 * companies match (a page then reads at most 1 / share entries per match); below it, its matches are read
 * whole from its slot and sorted in memory.
 */
const WALK_FROM_SHARE = 0.25;

/** The plan of one list request: an index walk with cursors, or a small candidate set sorted in memory. */
type Plan = { walk: CollectionQuery } | { memory: () => Promise<{ count: number; page: CompanyRecord[] }> };

/** `publicBase` is the service's public address, the base of an active `magic_link` (D20). */
export async function listCompanies(
  scope: CompanyScope,
  q: QueryParams,
  link: LinkContext,
  publicBase?: string,
): Promise<PageEnvelope<Company>> {
  const present = (records: CompanyRecord[]) => Promise.all(records.map((c) => presentCompany(c, publicBase)));
  const filter = parseCompanyFilter(q);
  const options = { scope: `companies:partner:${scope.partnerId}:${scope.companyId ?? '*'}`, filterParams: COMPANY_FILTERS };
  const request = pageRequest(q, options);
  const plan: Plan =
    scope.companyId === undefined
      ? await planList(scope.partnerId, filter, request)
      : { memory: () => inMemory(ownCompany(scope.companyId!), filter, request) };
  if ('memory' in plan) {
    const { count, page } = await plan.memory();
    return envelope(link, request, count, await present(page), undefined);
  }
  const page = await readPage(plan.walk, request);
  const next = page.position
    ? makeCursor(q, options, request.page + 1, request.pageSize, { position: page.position, count: page.count })
    : undefined;
  return envelope(link, request, page.count, await present(page.items.map((item) => fromItem(item))), next);
}

async function ownCompany(id: number): Promise<CompanyRecord[]> {
  const own = await getCompanyRecord(id);
  return own ? [own] : [];
}

/** Filters, orders and pages candidate records in memory (the spec's semantics, `matchesCompany`/`compareCompanies`). */
async function inMemory(candidates: Promise<CompanyRecord[]>, filter: CompanyFilter, request: PageRequest) {
  const matching = (await candidates).filter((c) => matchesCompany(c, filter)).sort(compareCompanies(filter.ordering));
  const start = (request.page - 1) * request.pageSize;
  return { count: matching.length, page: matching.slice(start, start + request.pageSize) };
}

/** Every company of a partner, whole (COLLECTION's keys, then the items by key, P234): only for what no index serves. */
async function partnerCompanies(partnerId: number): Promise<CompanyRecord[]> {
  const items = await queryItemsByKeys({
    IndexName: 'COLLECTION',
    KeyConditionExpression: 'GSI1PK = :pk',
    ExpressionAttributeValues: { ':pk': indexKeys.partnerCompanies(partnerId) },
  });
  return items.map(fromItem);
}

/** Every key entry of an exact filter's slot or lookup items (each as the company's key, P241). */
function slotKeys(query: CollectionQuery): Promise<Record<string, unknown>[]> {
  return readKeys({ ...query, conditions: [] });
}

/** Companies by id, whole (one BatchGet per 100), in the order given; one gone meanwhile is left out. */
async function companiesById(ids: number[]): Promise<CompanyRecord[]> {
  const items = await batchGetItems(ids.map((id) => keys.company(id)));
  return ids.flatMap((id) => {
    const item = items.get(primaryKeyOf(keys.company(id)));
    return item ? [fromItem(item)] : [];
  });
}

/** The id of the company a key entry names (`COMPANY#<id>`). */
const entryId = (entry: Record<string, unknown>) => Number(String(entry.PK).slice('COMPANY#'.length));

/** The whole companies of an exact filter's slot (keys, then one BatchGet per 100). */
async function slotCompanies(query: CollectionQuery): Promise<CompanyRecord[]> {
  return companiesById((await slotKeys(query)).map(entryId));
}

/**
 * Contains filters on the slim projection: every match's slim entry (lower-case name and search text, status,
 * dates, keys) is read once and ordered in memory; only the page's items are read whole.
 */
async function slimPage(partnerId: number, filter: CompanyFilter, request: PageRequest) {
  const names: Record<string, string> = {};
  const values: Record<string, unknown> = { ':pk': indexKeys.partnerCompanies(partnerId) };
  const filters: string[] = [];
  if (filter.name !== undefined) {
    names['#name'] = 'title_lc';
    values[':name'] = filter.name.toLowerCase();
    filters.push('contains(#name, :name)');
  }
  if (filter.search !== undefined) {
    names['#search'] = 'city_lc';
    values[':search'] = filter.search.toLowerCase();
    filters.push('contains(#search, :search)');
  }
  const statuses = [...new Set(filter.status)];
  if (statuses.length) {
    names['#status'] = 'status';
    statuses.forEach((s, i) => (values[`:s${i}`] = s));
    filters.push(`#status IN (${statuses.map((_, i) => `:s${i}`).join(', ')})`);
  }
  const entries = await queryAll({
    IndexName: 'SLIM',
    KeyConditionExpression: 'SPK = :pk',
    FilterExpression: filters.join(' AND '),
    ExpressionAttributeNames: names,
    ExpressionAttributeValues: values,
  });
  const sortable = entries.map((e) => ({
    id: entryId(e),
    name: String(e.title_lc ?? ''),
    status: e.status as CompanyRecord['status'],
    created_at: createdAtOfCollectionSort(String(e.GSI1SK)),
    updated_at: String(e.updated_at ?? ''),
  }));
  sortable.sort(compareCompanies(filter.ordering));
  const start = (request.page - 1) * request.pageSize;
  const page = await companiesById(sortable.slice(start, start + request.pageSize).map((s) => s.id));
  return { count: sortable.length, page };
}

/**
 * Several `status` values and no other exact filter (the spec's repeated parameter). Their total is the sum of
 * the partner's status counters. When they match at least `WALK_FROM_SHARE` of the companies, the order's
 * index is walked with the statuses checked on what it reads (COLLECTION's FilterExpression in created order),
 * reading ahead by their share; fewer are found in the statuses' slots: in created order their keys are
 * merged and only the page is read, in another order they are read whole and sorted.
 */
async function severalStatuses(
  partnerId: number,
  statuses: string[],
  filter: CompanyFilter,
  request: PageRequest,
  counted: ReturnType<typeof counterReader>,
): Promise<Plan> {
  const collection = indexKeys.partnerCompanies(partnerId);
  const counterKey = keys.countOf(collection);
  const [order] = filter.ordering;
  const ascending = !order.descending;
  const field = order.field;
  const created = field === 'created_at';
  const walk: CollectionQuery = {
    index: field === 'created_at' ? 'COLLECTION' : COMPANY_ORDER_INDEXES[field],
    partitionValue: collection,
    conditions: [{ attr: 'status', op: 'in', value: statuses }],
    ascending,
    ...(created ? {} : { ordered: true }),
  };
  const [sizes, partnerTotal] = await Promise.all([
    Promise.all(statuses.map((s) => counted(counterKey, `status#${s}`))),
    counted(counterKey),
  ]);
  const matches = sizes.reduce((sum, size) => sum + size, 0);
  if (request.cursor?.position.index === walk.index || matches >= WALK_FROM_SHARE * partnerTotal)
    return {
      walk: {
        ...walk,
        matches: () => Promise.resolve(matches),
        readAhead: Math.min(1 / WALK_FROM_SHARE, partnerTotal / Math.max(matches, 1)),
      },
    };
  const slots = statuses.map((status) => ({
    index: COMPANY_FILTER_SLOTS.status,
    partitionValue: companySlot(partnerId, 'status', status),
    conditions: [],
  }));
  if (created) return { memory: () => mergedSlotsPage(slots, ascending, request) };
  return { memory: async () => inMemory(Promise.resolve((await Promise.all(slots.map(slotCompanies))).flat()), filter, request) };
}

/** Slots in created order (their sort key), merged as keys: the page's items only are read. */
async function mergedSlotsPage(slots: CollectionQuery[], ascending: boolean, request: PageRequest) {
  const sortKey = sortKeyOf(COMPANY_FILTER_SLOTS.status);
  const entries = (await Promise.all(slots.map(slotKeys))).flat();
  const order = ascending ? 1 : -1;
  entries.sort((a, b) => (String(a[sortKey]) < String(b[sortKey]) ? -order : String(a[sortKey]) > String(b[sortKey]) ? order : 0));
  const start = (request.page - 1) * request.pageSize;
  return { count: entries.length, page: await companiesById(entries.slice(start, start + request.pageSize).map(entryId)) };
}

/** What the slim projection costs per company scanned (units; ~220-byte entries, P179). */
const SLIM_UNITS_PER_COMPANY = 0.03;

/**
 * Contains filters (with `status`) on the partner's search document (P179): a few kilobytes for all its
 * companies, whose matches are then read whole and ordered (the document holds no dates). The slim
 * projection answers instead when reading the matches whole would cost more than scanning the slim entries.
 */
async function searchPage(partnerId: number, filter: CompanyFilter, request: PageRequest, total: () => Promise<number>) {
  const [entries, companies] = await Promise.all([readSearchDocument(partnerId), total()]);
  const name = filter.name?.toLowerCase();
  const search = filter.search?.toLowerCase();
  const statuses = new Set<string>(filter.status);
  const ids = entries
    .filter(
      ([, status, entryName, text]) =>
        (name === undefined || entryName.includes(name)) &&
        (search === undefined || text.includes(search)) &&
        (!statuses.size || statuses.has(status)),
    )
    .map(([id]) => id);
  if (ids.length > request.pageSize && ids.length * 0.5 > SLIM_UNITS_PER_COMPANY * companies) return slimPage(partnerId, filter, request);
  return inMemory(companiesById(ids), filter, request);
}

async function planList(partnerId: number, filter: CompanyFilter, request: PageRequest): Promise<Plan> {
  const collection = indexKeys.partnerCompanies(partnerId);
  const counterKey = keys.countOf(collection);
  const counted = counterReader([counterKey]);
  const statuses = [...new Set(filter.status)];
  const exact = new Map<CompanySlotFilter, string | boolean>();
  if (statuses.length === 1) exact.set('status', statuses[0]);
  for (const name of ['ats', 'partner_company_id', 'candidate_sync_active', 'job_sync_active'] as const)
    if (filter[name] !== undefined) exact.set(name, filter[name]);
  const contains = filter.name !== undefined || filter.search !== undefined;
  const [first, ...more] = filter.ordering;
  const whole = (): Plan => ({ memory: () => inMemory(partnerCompanies(partnerId), filter, request) });
  if (more.length || [filter.name, filter.search].some((v) => v?.includes(SEARCH_SEPARATOR))) return whole();

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  const others = (answered: string) => conditions.filter((c) => c.attr !== answered);
  const ascending = !first.descending;
  const candidates: SourceCandidate[] = [...exact].map(([name, value]) => {
    const query: CollectionQuery = { ...companySource(partnerId, name, value), conditions: others(name), ascending };
    const size = (COMPANY_TOTALS_FILTERS as readonly string[]).includes(name)
      ? () => counted(counterKey, `${name}#${String(value)}`)
      : () => countPartition({ ...query, conditions: [] });
    return { query, size };
  });
  const smallest = async () => {
    const sizes = await Promise.all(candidates.map((c) => c.size()));
    const i = sizes.indexOf(Math.min(...sizes));
    return { candidate: candidates[i], size: sizes[i] };
  };

  if (contains) {
    // Exact filters the slim projection does not carry (ats, partner id, sync flags) narrow by their slot.
    if (candidates.some((c) => c.query.index !== COMPANY_FILTER_SLOTS.status)) {
      const { candidate } = await smallest();
      return { memory: () => inMemory(slotCompanies(candidate.query), filter, request) };
    }
    return { memory: () => searchPage(partnerId, filter, request, () => counted(counterKey)) };
  }
  if (statuses.length > 1) {
    if (candidates.length) {
      const { candidate } = await smallest();
      return { memory: () => inMemory(slotCompanies(candidate.query), filter, request) };
    }
    return severalStatuses(partnerId, statuses, filter, request, counted);
  }

  if (first.field === 'created_at') {
    const everything: CollectionQuery = { index: 'COLLECTION', partitionValue: collection, conditions, ascending };
    const skipping = request.page > 1 && !request.cursor;
    const chosen = await chooseSource(
      candidates,
      request.cursor?.position.index,
      skipping ? undefined : { query: everything, total: () => counted(counterKey) },
    );
    return { walk: chosen ?? { ...everything, total: () => counted(counterKey) } };
  }

  // Ordered by name, status or updated_at: the ordering index, keys only, in list order.
  const ordered: CollectionQuery = {
    index: COMPANY_ORDER_INDEXES[first.field],
    partitionValue: collection,
    conditions,
    ascending,
    ordered: true,
  };
  if (!candidates.length) return { walk: { ...ordered, total: () => counted(counterKey) } };
  // Read ahead in proportion to how many of the partner's companies match (at most four times).
  const readAhead = async (matches: number) => Math.min(1 / WALK_FROM_SHARE, (await counted(counterKey)) / Math.max(matches, 1));
  if (request.cursor?.position.index === ordered.index) {
    const matches = request.cursor.count;
    return { walk: { ...ordered, matches: () => Promise.resolve(matches), readAhead: await readAhead(matches) } };
  }
  const { candidate, size } = await smallest();
  // Few matches: read them whole and sort them; many matches of one filter: walk the ordering index with
  // the filter applied to the items read (its counter is the count); several filters: the smallest slot.
  const partnerTotal = await counted(counterKey);
  if (candidates.length > 1 || size <= request.pageSize || size < WALK_FROM_SHARE * partnerTotal)
    return { memory: () => inMemory(slotCompanies(candidate.query), filter, request) };
  return { walk: { ...ordered, matches: () => Promise.resolve(size), readAhead: await readAhead(size) } };
}
