/**
 * Which source a list reads (the planner's half of `paged-query.ts`): the smallest candidate partition
 * (`chooseSource`, P160, P161), or without one a date range or the collection (`collectionSource`, P162).
 */
import { countRange, kindOf, sourceOf, type CollectionQuery, type Condition } from '#platform/paged-query.js';
import { readCount } from '#platform/counts.js';
import type { IndexName } from '#platform/table.js';
import type { Walk } from '#platform/pagination.js';

/** A partition that can answer a list: one exact filter's slot, lookup items or lookup index. */
export interface SourceCandidate {
  query: CollectionQuery;
  /** How many records the partition holds. */
  size: () => Promise<number>;
  /** For a partition counted by its keys: the count, only up to `limit`. */
  countUpTo?: (limit: number) => Promise<number>;
}

/**
 * The candidate a cursor began on, else the smallest. Counters are read first; a partition counted by its keys
 * is counted only up to one more than the smallest size known, so a large uncounted filter beside a selective
 * one costs about the selective one's matches (P160).
 */
export async function chooseSource(candidates: SourceCandidate[], cursorIndex: unknown): Promise<CollectionQuery | undefined> {
  if (!candidates.length) return undefined;
  const resumed = candidates.find((c) => sourceOf(c.query) === cursorIndex);
  if (resumed) return { ...resumed.query, total: resumed.size };
  // One candidate needs no choosing: its size is read beside its first page (P255).
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

/** The share of a collection above which a date range is paged on the collection (`broadDateWalk`). */
const BROAD_DATE_SHARE = 0.25;

/** Where a list no exact filter narrows reads: its first date filter's range (of `ranges`), or the collection. */
export async function collectionSource(
  collection: string,
  conditions: Condition[],
  ranges: readonly (readonly [attr: string, index: IndexName])[],
  createdAt: string | undefined,
  state: Walk,
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
 * A date filter matching much of a collection (P162): counted on its range, paged by walking the collection
 * in list order, reading ahead by the share that matches. Otherwise the range itself (with its keys when it
 * counted them), or undefined for the range without them (other filters, or a bare `page=N`).
 */
async function broadDateWalk(
  range: CollectionQuery,
  walk: CollectionQuery,
  total: () => Promise<number>,
  state: Walk,
): Promise<CollectionQuery | undefined> {
  if (state.cursorIndex === walk.index) return walk;
  if (state.cursorIndex !== undefined || state.skipping || range.conditions.length) return undefined;
  const [{ count: matches, entries }, all] = await Promise.all([countRange({ ...range, total }), total()]);
  if (matches < BROAD_DATE_SHARE * all) return { ...range, entries };
  return { ...walk, matches: () => Promise.resolve(matches), readAhead: Math.min(1 / BROAD_DATE_SHARE, all / Math.max(matches, 1)) };
}
