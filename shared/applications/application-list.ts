/**
 * The applications the API reads: one (`getApplication`, read afresh) and the list (`listApplications`),
 * planned by `applicationQuery`, with the read-time copies of list pages (D9) from a per-instance cache.
 */
import { getChannel, getChannels, type TalentChannel } from '#applications/channels.js';
import { getPartnerKind } from '#companies/partners.js';
import { applicationCounterKey, jobCounterKey, totalsAttribute, valueCounterKey } from '#applications/application-counters.js';
import {
  APPLICATION_FILTER_SLOTS,
  applicationSlot,
  applicationSource,
  fromApplicationItem,
  getApplicationRecord,
  type ExactFilter,
} from '#applications/application-store.js';
import { ANONYMIZATION_AGE_DAYS, toApplication } from '#applications/applications.js';
import { now } from '#platform/clock.js';
import { counterReader } from '#platform/counts.js';
import { NotFoundError } from '#platform/errors.js';
import { getJobs } from '#jobs/job-store.js';
import type { JobRecord } from '#jobs/job-schema.js';
import { collections, indexKeys, keys } from '#platform/keys.js';
import { countMatching, readKeys, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, collectionSource, type SourceCandidate } from '#platform/paged-sources.js';
import { envelope, pageRequest, walkOf, type LinkContext, type PageEnvelope, type Walk } from '#platform/pagination.js';
import type { QueryParams } from '#platform/query-params.js';
import {
  APPLICATION_DATE_RANGES,
  APPLICATION_FILTERS,
  APPLICATION_FILTER_SET,
  COMPLEMENT_FILTERS,
  COUNTED_FILTERS,
  FOLDED_FILTERS,
  JOB_VALUE_FILTERS,
  LOOKUP_FILTERS,
  TOTALS_FILTERS,
  type CountedFilter,
  type JobValueFilter,
  type SlotFilter,
} from '#applications/application-filters.js';

export { APPLICATION_FILTERS };

/** One application of the company; another company's application is "not found". */
export async function getApplication(companyId: number, id: number): Promise<Record<string, unknown>> {
  const record = await getApplicationRecord(id);
  if (!record || record.company !== companyId) throw new NotFoundError();
  const [jobs, channel] = await Promise.all([
    getJobs(companyId, [record.job]),
    record.talent_channel ? getChannel(record.talent_channel) : undefined,
  ]);
  return toApplication(record, jobs.get(record.job), channel, 'single');
}

/**
 * Read-time copies on list pages (D9: the job's title and external id, the channel's name and logo) are cached
 * per instance for `READ_TIME_COPY_TTL_MS`, so a walk does not read the same jobs on every page.
 */
export const READ_TIME_COPY_TTL_MS = 60_000;
const READ_TIME_COPY_LIMIT = 20_000;

function copyCache<K, V>(load: (missing: K[]) => Promise<Map<K, V>>) {
  const cache = new Map<K, { value: V; until: number }>();
  return async (ids: K[]): Promise<Map<K, V>> => {
    const at = Date.now();
    const result = new Map<K, V>();
    const missing: K[] = [];
    for (const id of new Set(ids)) {
      const hit = cache.get(id);
      if (hit && hit.until > at) result.set(id, hit.value);
      else missing.push(id);
    }
    if (missing.length) {
      if (cache.size > READ_TIME_COPY_LIMIT) cache.clear();
      for (const [id, value] of await load(missing)) {
        cache.set(id, { value, until: at + READ_TIME_COPY_TTL_MS });
        result.set(id, value);
      }
    }
    return result;
  };
}

// Pure: only the list route reads copies; other bundles drop the caches and what they load (tree-shaking).
const jobCopies = /* @__PURE__ */ copyCache<string, JobRecord>(async (missing) => {
  const byCompany = new Map<number, number[]>();
  for (const key of missing) {
    const [company, id] = key.split(':').map(Number);
    byCompany.set(company, [...(byCompany.get(company) ?? []), id]);
  }
  const out = new Map<string, JobRecord>();
  for (const [company, ids] of byCompany) for (const [id, job] of await getJobs(company, ids)) out.set(`${company}:${id}`, job);
  return out;
});
const channelCopies = /* @__PURE__ */ copyCache<number, TalentChannel>(getChannels);

/**
 * Plans a list: the most selective exact filter's partition (sized from the counters), several broad ones
 * counted from their complements (P177), or a date range or the collection. A cursor's walk keeps its source.
 */
export async function applicationQuery(companyId: number, q: QueryParams, { cursorIndex, skipping }: Walk = {}): Promise<CollectionQuery> {
  const values = APPLICATION_FILTER_SET.read(q);
  const text = (name: string) => values.get(name) as string | undefined;
  const id = (name: string) => values.get(name) as number | undefined;
  const email = text('email');
  const job = id('job');
  const createdAt = text('created_at');
  // The exact filters with a slot or lookup items (the job's apart below).
  const exact = new Map<ExactFilter, string | number>();
  for (const filter of [...LOOKUP_FILTERS, ...(Object.keys(APPLICATION_FILTER_SLOTS) as SlotFilter[])])
    if (filter !== 'job' && values.has(filter)) exact.set(filter, values.get(filter) as string | number);
  const partner = id('partner');
  // `agency=X` is `partner=X` for an agency X and matches nothing otherwise (P26, P236).
  const agency = id('agency');
  if (agency !== undefined) {
    if ((partner !== undefined && partner !== agency) || (await getPartnerKind(agency)) !== 'agency') return nothing(companyId);
    exact.set('partner', agency);
  }

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  if (job !== undefined) conditions.push({ attr: 'job', op: 'eq', value: job });
  conditions.push(...APPLICATION_FILTER_SET.dateConditions(values));
  // D10: an anonymized application has no e-mail, so the filter must not find it before retention has run.
  const cutoff = new Date(now().getTime() - ANONYMIZATION_AGE_DAYS * 24 * 3600 * 1000).toISOString();
  const emailFrom = createdAt && createdAt > cutoff ? createdAt : cutoff;
  if (email !== undefined) {
    conditions.push({ attr: 'email_lc', op: 'eq', value: email.toLowerCase() });
    conditions.push({ attr: 'created_at', op: 'gte', value: emailFrom });
  }
  const collection = collections.companyApplications(companyId);
  const others = (answered: string) => conditions.filter((c) => c.attr !== answered);

  const counted = counterReader([
    applicationCounterKey(companyId),
    ...[...COUNTED_FILTERS, ...JOB_VALUE_FILTERS].flatMap((f) => {
      const value = f === 'job' ? job : exact.get(f);
      return value === undefined ? [] : [valueCounterKey(companyId, f, value)];
    }),
  ]);
  const candidates: SourceCandidate[] = [];
  for (const [filter, value] of exact) {
    const query: CollectionQuery = { ...applicationSource(companyId, filter, value), sortKeyFrom: createdAt, conditions: others(filter) };
    const is = (filters: readonly string[]) => filters.includes(filter);
    const onCompany = () => counted(applicationCounterKey(companyId), totalsAttribute(filter as CountedFilter, value));
    const own = () => counted(valueCounterKey(companyId, filter as (typeof FOLDED_FILTERS)[number], value));
    const whole = { ...query, sortKeyFrom: undefined, conditions: [] };
    if (is(TOTALS_FILTERS)) candidates.push({ query, size: onCompany });
    // Folded or on its own item: the sum of both (P160).
    else if (is(FOLDED_FILTERS)) candidates.push({ query, size: async () => (await onCompany()) + (await own()) });
    else if (is(JOB_VALUE_FILTERS))
      candidates.push({ query, size: () => jobValueTotal(companyId, filter as JobValueFilter, value, counted) });
    // No counter: the slot's keys are counted (P160).
    else candidates.push({ query, size: () => countMatching(whole), countUpTo: (limit) => countMatching(whole, limit) });
  }
  if (job !== undefined) {
    const query: CollectionQuery = { ...applicationSource(companyId, 'job', job), sortKeyFrom: createdAt, conditions: others('job') };
    candidates.push({ query, size: () => counted(valueCounterKey(companyId, 'job', job)) });
  }
  if (email !== undefined) {
    // From the D10 cutoff; counted as keys (an applicant has a handful of applications).
    const query: CollectionQuery = {
      index: 'LOOKUP',
      partitionValue: indexKeys.applicationsByEmail(companyId, email),
      sortKeyFrom: emailFrom,
      conditions: others('email_lc').filter((c) => c.attr !== 'created_at'),
    };
    candidates.push({ query, size: () => countMatching({ ...query, sortKeyFrom: undefined, conditions: [] }) });
  }
  // Several broad exact filters: counted from their complements (P177).
  if (cursorIndex === undefined && !skipping && !createdAt && exact.size >= 2 && conditions.length === exact.size) {
    const broad = await complementQuery(companyId, exact, candidates, counted);
    if (broad) return broad;
  }
  const chosen = await chooseSource(candidates, cursorIndex);
  if (chosen) return chosen;
  return collectionSource(collection, conditions, APPLICATION_DATE_RANGES, createdAt, { cursorIndex, skipping });
}

/** A list that matches nothing: a slot partition no application is in (no partner has id 0). */
function nothing(companyId: number): CollectionQuery {
  const query = { index: APPLICATION_FILTER_SLOTS.partner, partitionValue: applicationSlot(companyId, 'partner', 0), conditions: [] };
  return { ...query, total: () => Promise.resolve(0) };
}

/** A job value's total (P181): its own item's `unfolded` plus its attribute on each job's counter it lists. */
async function jobValueTotal(
  companyId: number,
  filter: JobValueFilter,
  value: string | number,
  counted: ReturnType<typeof counterReader>,
): Promise<number> {
  const own = await counted.item(valueCounterKey(companyId, filter, value));
  if (!own) return 0;
  const jobs = [...((own.jobs as Set<number> | undefined) ?? [])].map((jobId) => jobCounterKey(companyId, Number(jobId)));
  const onJobs = counterReader(jobs);
  const folded = await Promise.all(jobs.map((key) => onJobs(key, totalsAttribute(filter, value))));
  return folded.reduce((sum, n) => sum + n, Number(own.unfolded ?? 0));
}

/**
 * A first page of several exact filters that each match most of a company (P177): the count is the company's
 * total less the records in any other value's partition, read as keys while they are fewer than the smallest
 * filter's matches; the page walks the smallest filter's slot. Undefined: count the usual way.
 */
async function complementQuery(
  companyId: number,
  exact: Map<ExactFilter, string | number>,
  candidates: SourceCandidate[],
  counted: ReturnType<typeof counterReader>,
): Promise<CollectionQuery | undefined> {
  const filters = [...exact];
  if (!filters.every(([filter]) => (COMPLEMENT_FILTERS as readonly string[]).includes(filter))) return undefined;
  // One candidate per entry of `exact`, in its order.
  const sizes = await Promise.all(candidates.map((c) => c.size()));
  const counter = (await counted.item(applicationCounterKey(companyId))) ?? {};
  const total = Number(counter.count ?? 0);
  const smallest = sizes.indexOf(Math.min(...sizes));
  const outside = sizes.reduce((sum, size) => sum + Math.max(0, total - size), 0);
  if (outside >= sizes[smallest]) return undefined;
  const complements = filters.map(([filter, value], i) => {
    const partitions: CollectionQuery[] = [];
    let valued = 0;
    for (const [attribute, amount] of Object.entries(counter)) {
      if (!attribute.startsWith(`${filter}#`) || typeof amount !== 'number') continue;
      valued += amount;
      const other = attribute.slice(filter.length + 1);
      if (other !== String(value) && amount > 0) partitions.push({ ...applicationSource(companyId, filter, other), conditions: [] });
    }
    return { partitions, size: Math.max(0, total - sizes[i]), unreadable: total > valued };
  });
  // Records without a value of an optional filter are in no partition (P236): their complement is unreadable.
  if (complements.some((c) => c.unreadable)) return undefined;
  // Keys that do not add up to a complement's size (a write in between) leave the count to the usual way.
  const read = await Promise.all(complements.map(async (c) => (await Promise.all(c.partitions.map((p) => readKeys(p)))).flat()));
  if (read.some((entries, i) => entries.length !== complements[i].size)) return undefined;
  const matches = total - new Set(read.flat().map((entry) => String(entry.PK))).size;
  const walked = candidates[smallest];
  return {
    ...walked.query,
    total: () => Promise.resolve(sizes[smallest]),
    matches: () => Promise.resolve(matches),
    readAhead: Math.min(4, sizes[smallest] / Math.max(matches, 1)),
  };
}

export async function listApplications(
  companyId: number,
  q: QueryParams,
  link: LinkContext,
): Promise<PageEnvelope<Record<string, unknown>>> {
  const options = { scope: `applications:company:${companyId}`, filterParams: APPLICATION_FILTERS };
  const request = pageRequest(q, options);
  const query = await applicationQuery(companyId, q, walkOf(request));
  const records = { key: keys.application, owned: (item: Record<string, unknown>) => item.company === companyId };
  const page = await readPage({ ...query, records }, request);
  const found = page.items.map(fromApplicationItem);
  const [jobs, channels] = await Promise.all([
    jobCopies(found.map((r) => `${companyId}:${r.job}`)),
    channelCopies(found.map((r) => r.talent_channel).filter((id): id is number => id !== null)),
  ]);
  const results = found.map((r) =>
    toApplication(r, jobs.get(`${companyId}:${r.job}`), r.talent_channel ? channels.get(r.talent_channel) : undefined, 'list'),
  );
  return envelope(link, options, request, page, results);
}
