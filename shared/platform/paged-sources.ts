/**
 * Which source a list reads, the planner's half of `paged-query.ts`: among the candidate partitions, the one
 * a cursor began on or else the smallest (`chooseSource`: sizes from counters, a partition without one
 * counted only as far as the choice needs, P160; the other slots whose keys a first page intersects, P161);
 * a broad date filter walked on its collection (`broadDateWalk`, P162); and the counts a planner makes: one
 * partition's matches (`countPartition`) and several broad filters' matches from their complements
 * (`countByComplements`, P177).
 */
import { countMatching, kindOf, readKeys, sourceOf, type CollectionQuery } from '#platform/paged-query.js';

/** The records one filter does not match: partitions that together hold exactly them, and how many they are. */
export interface Complement {
  partitions: CollectionQuery[];
  size: number;
}

/**
 * How many records match every filter, from what they do not match (P177): the collection's total minus the
 * union of the filters' complements, read as keys (a broad filter's complement is small). Undefined when a
 * complement's keys do not come to its size (a record without its index entry, a value the caller could not
 * enumerate, a write in between): the caller then counts another way.
 */
export async function countByComplements(total: number, complements: Complement[]): Promise<number | undefined> {
  const outside = new Set<string>();
  const read = await Promise.all(complements.map(async (c) => (await Promise.all(c.partitions.map((p) => readKeys(p)))).flat()));
  for (const [i, entries] of read.entries()) {
    if (entries.length !== complements[i].size) return undefined;
    for (const entry of entries) outside.add(String(entry.PK));
  }
  return total - outside.size;
}

/**
 * How many entries of a source match (its FilterExpression, or its residual conditions read in memory); with
 * `limit`, counting stops there (a partition without conditions, read as keys: the answer is then ≥ limit).
 */
export async function countPartition(query: CollectionQuery, limit?: number): Promise<number> {
  return countMatching({ ...query, total: undefined }, kindOf(query), limit);
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
 * partition is smallest, whose size is then the list's total when nothing else filters.
 */
export async function chooseSource(
  candidates: SourceCandidate[],
  cursorIndex: unknown,
  broad?: { query: CollectionQuery; total: () => Promise<number> },
): Promise<CollectionQuery | undefined> {
  if (!candidates.length) return undefined;
  if (broad && cursorIndex === broad.query.index) return broad.query;
  const resumed = candidates.find((c) => sourceOf(c.query) === cursorIndex);
  if (resumed) return { ...resumed.query, total: resumed.size };
  const sizes = await candidateSizes(candidates);
  const smallest = sizes.indexOf(Math.min(...sizes));
  const chosen = candidates[smallest];
  // A lone filter that matches most of the collection is cheaper walked on the collection itself with a
  // FilterExpression (few items read past per page) than as keys plus a BatchGet, when the collection's index
  // projects whole items; its counter is the count. On a keys-only collection (P234) the slot is cheaper.
  // (A caller that must skip leaves `broad` out: skipping reads keys only on the slot.)
  if (
    broad &&
    kindOf(broad.query) === 'items' &&
    candidates.length === 1 &&
    !chosen.query.conditions.length &&
    sizes[smallest] >= BROAD_SHARE * (await broad.total())
  )
    return { ...broad.query, matches: () => Promise.resolve(sizes[smallest]) };
  return { ...chosen.query, total: () => Promise.resolve(sizes[smallest]), keyFilters: keyFiltersFor(chosen, candidates) };
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

/**
 * The candidates' sizes: counters first, then the partitions counted by their keys, each only up to one more
 * than the smallest size known so far (it cannot be chosen beyond that), so a large uncounted filter next to
 * a selective one costs about the selective one's matches (P160).
 */
async function candidateSizes(candidates: SourceCandidate[]): Promise<number[]> {
  const sizes = await Promise.all(candidates.map((c) => (c.countUpTo ? undefined : c.size())));
  for (const [i, candidate] of candidates.entries()) {
    if (!candidate.countUpTo) continue;
    const known = sizes.filter((s): s is number => s !== undefined);
    sizes[i] = known.length ? await candidate.countUpTo(Math.min(...known) + 1) : await candidate.size();
  }
  return sizes as number[];
}

/** The share of a collection above which one exact filter is walked on the collection (see chooseSource). */
const BROAD_SHARE = 0.8;

/** The share of a collection above which a date range is paged on the collection itself (see broadDateWalk). */
const BROAD_DATE_SHARE = 0.25;

/**
 * A date `>=` filter that matches much of a collection: its range is counted as keys (`Select=COUNT` on the
 * date index, first page only) and paged by walking the collection in list order with the date as a
 * FilterExpression, so a page reads about the page (ahead by the share that matches) and later pages carry
 * the count in the cursor, instead of every page reading and sorting the whole range. Undefined: page the
 * range itself (few matches, other filters, or a bare `page=N`, which the range answers by slicing).
 */
export async function broadDateWalk(
  range: CollectionQuery,
  walk: CollectionQuery,
  total: () => Promise<number>,
  state: { cursorIndex?: unknown; skipping?: boolean },
): Promise<CollectionQuery | undefined> {
  if (state.cursorIndex === walk.index) return walk;
  if (state.cursorIndex !== undefined || state.skipping || range.conditions.length) return undefined;
  const [matches, all] = await Promise.all([countMatching({ ...range, total }, 'dateRange'), total()]);
  if (matches < BROAD_DATE_SHARE * all) return undefined;
  return { ...walk, matches: () => Promise.resolve(matches), readAhead: Math.min(1 / BROAD_DATE_SHARE, all / Math.max(matches, 1)) };
}
