/**
 * Jobs as the interface reads them: the list (`GET /jobs/`) and one job (`GET /jobs/{id}`), each with its
 * `run_id` resolved (P192) and its `apply_webhooks` (P197).
 */
import { NO_APPLY_LINKS, type ApplyLinks } from '#jobs/apply-links.js';
import { collections, indexKeys, keys } from '#platform/keys.js';
import { countMatching, readPage, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { chooseSource, collectionSource, type SourceCandidate } from '#platform/paged-sources.js';
import { envelope, pageRequest, walkOf, type LinkContext, type PageEnvelope, type Walk } from '#platform/pagination.js';
import type { QueryParams } from '#platform/query-params.js';
import { counterReader } from '#platform/counts.js';
import { toJob } from '#jobs/job-schema.js';
import { JOB_FILTER_SET, JOB_FILTERS, type JobFilters, type JobSlotFilter } from '#jobs/job-filters.js';
import { JOB_SCAN_INDEX } from '#jobs/job-filter-layout.js';
import { fromItem, getJob, jobSlot, jobValueCounterKey, lastCompleteRun, resolveRunIds } from '#jobs/job-store.js';

export { JOB_FILTERS };

/** Below this many matches an exact filter's slot serves a contains filter too; above it the slim scan does. */
const SLOT_BEFORE_SCAN = 100;

/**
 * Plans a list: the most selective exact filter's slot, the scan index for a contains filter that a slot does not
 * narrow to a few jobs, a date range, or the collection. A cursor's walk keeps its index. `filters` are the
 * list's (a test passes its own declarations, P292).
 */
export async function jobQuery(
  companyId: number,
  q: QueryParams,
  { cursorIndex, skipping }: Walk = {},
  filters: JobFilters = JOB_FILTER_SET,
): Promise<CollectionQuery> {
  const values = filters.read(q);
  const text = (name: string) => values.get(name) as string | undefined;
  // Slot filters by name: the list's (`JobSlotFilter`), or a test's declarations (P292).
  const exact = new Map<JobSlotFilter, string>();
  for (const filter of filters.slots.keys()) if (text(filter)) exact.set(filter as JobSlotFilter, text(filter)!);
  const scans = [...filters.scans].filter(([filter]) => text(filter));
  const createdAt = text('created_at');
  const [lookup] = [...filters.lookups].filter(([filter]) => text(filter) !== undefined);
  const externalId = lookup && text(lookup[0]);
  const collection = collections.companyJobs(companyId);

  const conditions: Condition[] = [...exact].map(([attr, value]) => ({ attr, op: 'eq' as const, value }));
  for (const [filter, copy] of scans) conditions.push({ attr: copy, op: 'contains', value: text(filter)!.toLowerCase() });
  conditions.push(...filters.dateConditions(values));
  if (externalId !== undefined) conditions.push({ attr: lookup[0], op: 'eq', value: externalId });
  const others = (answered: string) => conditions.filter((c) => c.attr !== answered);

  const counted = counterReader([
    keys.countOf(collection),
    ...[...exact].filter(([f]) => !filters.totals.includes(f)).map(([f, v]) => jobValueCounterKey(companyId, f, v)),
  ]);
  const candidates: SourceCandidate[] = [...exact].map(([filter, value]) => ({
    query: {
      index: filters.slots.get(filter)!,
      partitionValue: jobSlot(companyId, filter, value),
      sortKeyFrom: createdAt,
      conditions: others(filter),
    },
    size: filters.totals.includes(filter)
      ? () => counted(keys.countOf(collection), `${filter}#${value}`)
      : () => counted(jobValueCounterKey(companyId, filter, value)),
  }));
  if (externalId !== undefined) {
    const query: CollectionQuery = {
      index: lookup[1],
      partitionValue: indexKeys.jobByExternalId(companyId, externalId),
      sortKeyFrom: createdAt,
      conditions: others(lookup[0]),
    };
    candidates.push({ query, size: () => countMatching({ ...query, sortKeyFrom: undefined, conditions: [] }) });
  }
  const slim: CollectionQuery = { index: JOB_SCAN_INDEX, partitionValue: collection, sortKeyFrom: createdAt, conditions };
  if (scans.length) {
    if (cursorIndex === JOB_SCAN_INDEX || !candidates.length) return slim;
    const chosen = await chooseSource(candidates, cursorIndex);
    const size = chosen?.total ? await chosen.total() : Infinity;
    return chosen && (size <= SLOT_BEFORE_SCAN || cursorIndex === chosen.index) ? chosen : slim;
  }
  return (
    (await chooseSource(candidates, cursorIndex)) ??
    collectionSource(collection, conditions, filters.dateRanges, createdAt, { cursorIndex, skipping })
  );
}

/** A page of the company's jobs; `links` (read beside the page) gives each its `apply_webhooks` (P197). */
export async function listJobs(
  companyId: number,
  q: QueryParams,
  link: LinkContext,
  links: Promise<ApplyLinks> = Promise.resolve(NO_APPLY_LINKS),
): Promise<PageEnvelope<Record<string, unknown>>> {
  links.catch(() => undefined);
  const options = { scope: `jobs:company:${companyId}`, limitAlias: true, filterParams: JOB_FILTER_SET.names };
  const request = pageRequest(q, options);
  // Read beside the page (P192).
  const lastRun = lastCompleteRun(companyId);
  lastRun.catch(() => undefined);
  const query = await jobQuery(companyId, q, walkOf(request));
  // A job's key is its company's: a carried id reads only this company's jobs.
  const records = { key: (id: number) => keys.job(companyId, id), owned: () => true };
  const page = await readPage({ ...query, records }, request);
  const jobs = await resolveRunIds(companyId, page.items.map(fromItem), lastRun);
  const apply = await links;
  const results = jobs.map((job) => toJob(job, true, apply.forJob(job.id)));
  return envelope(link, options, request, page, results);
}

/** One job as the interface shows it: its `run_id` resolved (P192), its `apply_webhooks` from `links` (P197). */
export async function getJobView(
  companyId: number,
  id: number,
  links: Promise<ApplyLinks> = Promise.resolve(NO_APPLY_LINKS),
): Promise<Record<string, unknown>> {
  links.catch(() => undefined);
  const [job] = await resolveRunIds(companyId, [await getJob(companyId, id)]);
  return toJob(job, false, (await links).forJob(job.id));
}
