/**
 * Which source a list reads, the planner's half of `paged-query.ts`: among the candidate partitions, the one
 * a cursor began on or else the smallest (`chooseSource`: sizes from counters, a partition without one
 * counted only as far as the choice needs, P160; the other slots whose keys a first page intersects, P161);
 * a list without one on a date range or its collection, a broad date filter walked on the collection
 * (`collectionSource`, P162); and one partition's matches
 * (`countPartition`).
 */
import { countMatching, kindOf, sourceOf, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { readCount } from '#platform/counts.js';
import type { IndexName } from '#platform/table.js';

/**
 * How many entries of a source match (its FilterExpression, or its residual conditions read in memory); with
 * `limit`, counting stops there (a partition without conditions, read as keys: the answer is then ≥ limit).
 */
export async function countPartition(query: CollectionQuery, limit?: number): Promise<number> {
  return countMatching({ ...query, total: undefined }, limit);
}

/** A partition that can answer a list: one exact filter's slot or lookup items (P241), a lookup index, a date range. */
export interface SourceCandidate {
  query: CollectionQuery;
  /** How many records the partition holds (a counter item, or the count of a small partition). */
  size: () => Promise<number>;
  /** For a partition counted by its keys: the count, but only up to `limit` (it is then at least that). */
  countUpTo?: (limit: number) => Promise<number>;
}

/**
 * The candidate a list walks: the one its cursor began on (the walk stays on its index), else the one whose
 * partition is smallest, whose size is then the list's total when nothing else filters. Sizes: counters
 * first, then the partitions counted by their keys, each only up to one more than the smallest size known so
 * far (it cannot be chosen beyond that), so a large uncounted filter next to a selective one costs about the
 * selective one's matches (P160). Walking a broad filter on its collection paid only while the collection
 * projected whole items (P234, P244): a slot is cheaper now.
 */
export async function chooseSource(candidates: SourceCandidate[], cursorIndex: unknown): Promise<CollectionQuery | undefined> {
  if (!candidates.length) return undefined;
  const resumed = candidates.find((c) => sourceOf(c.query) === cursorIndex);
  if (resumed) return { ...resumed.query, total: resumed.size };
  // One candidate needs no choosing: its size is read beside its first page, not before it.
  if (candidates.length === 1) return { ...candidates[0].query, total: candidates[0].size };
  const sizes = await Promise.all(candidates.map((c) => (c.countUpTo ? undefined : c.size())));
  for (const [i, candidate] of candidates.entries()) {
    if (!candidate.countUpTo) continue;
    const known = sizes.filter((s): s is number => s !== undefined);
    sizes[i] = known.length ? await candidate.countUpTo(Math.min(...known) + 1) : await candidate.size();
  }
  const smallest = sizes.indexOf(Math.min(...(sizes as number[])));
  const chosen = candidates[smallest];
  return { ...chosen.query, total: () => Promise.resolve(sizes[smallest]!), keyFilters: keyFiltersFor(chosen, candidates) };
}

/** The other candidates that are keys-only slots answering one exact condition of the chosen one (P161). */
function keyFiltersFor(chosen: SourceCandidate, candidates: SourceCandidate[]): CollectionQuery['keyFilters'] {
  if (kindOf(chosen.query) !== 'keys') return undefined;
  return candidates.flatMap((c) => {
    if (c === chosen || kindOf(c.query) !== 'keys' || c.query.ordered) return [];
    const answered = chosen.query.conditions.filter((x) => !c.query.conditions.some((y) => y.attr === x.attr));
    if (answered.length !== 1 || answered[0].op !== 'eq') return [];
    return [{ attr: answered[0].attr, query: { ...c.query, conditions: [] }, size: c.size, countUpTo: c.countUpTo }];
  });
}

/** The share of a collection above which a date range is paged on the collection itself (see broadDateWalk). */
const BROAD_DATE_SHARE = 0.25;

/**
 * Where a list that no exact filter narrows reads: the range of its first date filter (of `ranges`) that has
 * a date index, or the collection in created order (its total from the counter item).
 */
export async function collectionSource(
  collection: string,
  conditions: Condition[],
  ranges: readonly (readonly [attr: string, index: IndexName])[],
  createdAt: string | undefined,
  state: { cursorIndex?: unknown; skipping?: boolean },
): Promise<CollectionQuery> {
  const total = () => readCount(collection);
  const walk: CollectionQuery = { index: 'COLLECTION', partitionValue: collection, sortKeyFrom: createdAt, conditions };
  const [index, bound] =
    ranges.map(([attr, i]) => [i, conditions.find((c) => c.attr === attr && c.op === 'gte')] as const).find(([, b]) => b) ?? [];
  if (!index || !bound) return { ...walk, total };
  const rest = conditions.filter((c) => c !== bound);
  if (createdAt) rest.push({ attr: 'created_at', op: 'gte', value: createdAt });
  const range: CollectionQuery = { index, partitionValue: collection, sortKeyFrom: String(bound.value), conditions: rest };
  return (await broadDateWalk(range, walk, total, state)) ?? range;
}

/**
 * A date `>=` filter that matches much of a collection: its range is counted as keys (`Select=COUNT` on the
 * date index, first page only) and paged by walking the collection in list order with the date as a
 * FilterExpression, so a page reads about the page (ahead by the share that matches) and later pages carry
 * the count in the cursor, instead of every page reading and sorting the whole range. Undefined: page the
 * range itself (few matches, other filters, or a bare `page=N`, which the range answers by slicing).
 */
async function broadDateWalk(
  range: CollectionQuery,
  walk: CollectionQuery,
  total: () => Promise<number>,
  state: { cursorIndex?: unknown; skipping?: boolean },
): Promise<CollectionQuery | undefined> {
  if (state.cursorIndex === walk.index) return walk;
  if (state.cursorIndex !== undefined || state.skipping || range.conditions.length) return undefined;
  const [matches, all] = await Promise.all([countMatching({ ...range, total }), total()]);
  if (matches < BROAD_DATE_SHARE * all) return undefined;
  return { ...walk, matches: () => Promise.resolve(matches), readAhead: Math.min(1 / BROAD_DATE_SHARE, all / Math.max(matches, 1)) };
}
