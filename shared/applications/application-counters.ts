/**
 * The counters an application counts in, by its filters' `serve.totals` (`application-filters.ts`):
 * - `company`: attributes of the company's application counter item (few values each);
 * - `folded`: values few per company in practice (channels, the partner's company ids): on the company's counter
 *   item while it holds fewer than `FOLD_LIMIT` of them, else on an item of their own; a total is the sum of both;
 * - `own`: an item per value (a company has thousands of jobs);
 * - `job`: a sender's id for a job, folded likewise into that job's counter item. The value's own item lists those
 *   jobs (`jobs`, written before the totals move) and counts the rest (`unfolded`): the total is `unfolded` plus the
 *   value's attribute on each listed job's item (P181).
 * The create moves them in its transaction (`counterUpdates`), the sync worker moves the `sync_status` totals
 * (`syncStatusCounterMove`), and the list reads them to size its sources.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { ApplicationRecord } from '#applications/applications.js';
import { filterValue } from '#applications/application-store.js';
import {
  COUNTED_FILTERS,
  FOLDED_FILTERS,
  JOB_VALUE_FILTERS,
  TOTALS_FILTERS,
  type CountedFilter,
  type JobValueFilter,
} from '#applications/application-filters.js';
import { config, db } from '#platform/clients.js';
import { counterAdd } from '#platform/counts.js';
import { collections, indexKeys, keys, type Key } from '#platform/keys.js';

/** Most values folded into one counter item, and the longest attribute name folded: the item stays near 1 KB (2 WCU, P160). */
export const FOLD_LIMIT = 16;
const FOLD_MAX_ATTRIBUTE = 96;
/** A counter item's attribute that counts the values folded into it. */
const FOLDED_COUNT = 'folded';

/** The counter item of one filter value with a counter of its own (for a job value: its jobs and what was not folded). */
export function valueCounterKey(companyId: number, filter: (typeof COUNTED_FILTERS)[number] | JobValueFilter, value: string | number) {
  return keys.countOf(indexKeys.filterSlot(collections.companyApplications(companyId), filter, value));
}

/** The attribute that totals one filter value on a counter item (the company's, or a job's for job values). */
export const totalsAttribute = (filter: CountedFilter | JobValueFilter, value: string | number) => `${filter}#${value}`;

/** The counter item of one job's applications (`count`, and the job values folded into it). */
export function jobCounterKey(companyId: number, jobId: number): Key {
  return valueCounterKey(companyId, 'job', jobId);
}

/** The company's application counter item. */
export function applicationCounterKey(companyId: number): Key {
  return keys.countOf(collections.companyApplications(companyId));
}

/**
 * Where folded totals go: a value already on the counter item stays there, a new one joins while fewer than
 * `FOLD_LIMIT` are folded, else it goes to its own item. Built from the item as read (absent: nothing folded);
 * `place` remembers what it folded, so one fold serves a batch. A concurrent writer may fold past the limit by a
 * few: the limit bounds the item's size, not the totals, which are exact wherever each increment went.
 */
export class CounterFold {
  private readonly present: Set<string>;
  private folded: number;
  /**
   * Job values newly folded into this (job's) counter item: their own items must list the job before the
   * totals move (`registerJobValues`), so that a reader that finds a value on a job's item also finds the job.
   */
  readonly registrations: Key[] = [];
  constructor(item?: Record<string, unknown>) {
    this.present = new Set(Object.keys(item ?? {}));
    this.folded = Number(item?.[FOLDED_COUNT] ?? 0);
  }
  /** Whether the attribute goes onto this item; `fresh` when it is new there (the fold count moves). */
  place(attribute: string): { onCompany: boolean; fresh: boolean } {
    if (this.present.has(attribute)) return { onCompany: true, fresh: false };
    if (this.folded >= FOLD_LIMIT || attribute.length > FOLD_MAX_ATTRIBUTE) return { onCompany: false, fresh: false };
    this.present.add(attribute);
    this.folded++;
    return { onCompany: true, fresh: true };
  }
}

/** Whether any of `filters` has a value in `r` (a record, or the create's input: its fields are named as the record's). */
const hasValueOf = (filters: readonly string[], r: object) =>
  filters.some(
    (filter) => (r as Readonly<Record<string, unknown>>)[filter] !== null && (r as Readonly<Record<string, unknown>>)[filter] !== undefined,
  );

/** Whether the record (or input) carries a value of a folded filter (the create then reads the company counter first). */
export const hasFoldedValues = (r: object): boolean => hasValueOf(FOLDED_FILTERS, r);

/** Whether the record (or input) carries a job value (the create then reads its job's counter item first). */
export const hasJobValues = (r: object): boolean => hasValueOf(JOB_VALUE_FILTERS, r);

/**
 * Lists the job on the own items of the values newly folded into its counter item (`CounterFold.registrations`).
 * Written before the transaction that moves the totals, outside it (1 WCU each instead of 2): should that
 * transaction fail, the list names a job whose item holds nothing of the value, which adds 0 to its total.
 */
export async function registerJobValues(jobId: number, fold: CounterFold | undefined): Promise<void> {
  await Promise.all(
    (fold?.registrations ?? []).map((key) =>
      db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: key,
          UpdateExpression: 'ADD jobs :job',
          ExpressionAttributeValues: { ':job': new Set([jobId]) },
        }),
      ),
    ),
  );
}

/**
 * Every counter an application counts in, and the amount of each attribute. Without `fold`/`jobFold`, folded
 * and job values all go to their own items. `partner_application_id` has no counter: one id matches one
 * application, so its lookup partition's keys are counted instead.
 */
export function counterTargets(
  r: ApplicationRecord,
  options: { fold?: CounterFold; jobFold?: CounterFold } = {},
): { key: Key; attributes: Map<string, number> }[] {
  const company = new Map<string, number>([['count', 1]]);
  for (const filter of TOTALS_FILTERS) {
    const value = filterValue(r, filter);
    if (value !== null && value !== undefined) company.set(totalsAttribute(filter, value), 1);
  }
  const own: { key: Key; attributes: Map<string, number> }[] = [];
  for (const filter of COUNTED_FILTERS) {
    const value = filterValue(r, filter);
    if (value === null || value === undefined) continue;
    const folding = (FOLDED_FILTERS as readonly string[]).includes(filter) && options.fold;
    const placed = folding ? options.fold!.place(totalsAttribute(filter, value)) : { onCompany: false, fresh: false };
    if (placed.onCompany) {
      company.set(totalsAttribute(filter, value), 1);
      if (placed.fresh) company.set(FOLDED_COUNT, (company.get(FOLDED_COUNT) ?? 0) + 1);
    } else {
      own.push({ key: valueCounterKey(r.company, filter, value), attributes: new Map([['count', 1]]) });
    }
  }
  // A job value goes onto its job's counter item when the fold places it there, else onto its own item's `unfolded`.
  for (const filter of JOB_VALUE_FILTERS) {
    const value = r[filter];
    if (value === null || value === undefined) continue;
    const attribute = totalsAttribute(filter, value);
    const placed = options.jobFold ? options.jobFold.place(attribute) : { onCompany: false, fresh: false };
    const jobItem = own.find((t) => t.key.PK === jobCounterKey(r.company, r.job).PK);
    if (placed.onCompany && jobItem) {
      jobItem.attributes.set(attribute, 1);
      if (placed.fresh) {
        jobItem.attributes.set(FOLDED_COUNT, (jobItem.attributes.get(FOLDED_COUNT) ?? 0) + 1);
        options.jobFold!.registrations.push(valueCounterKey(r.company, filter, value));
      }
    } else {
      own.push({ key: valueCounterKey(r.company, filter, value), attributes: new Map([['unfolded', 1]]) });
    }
  }
  return [...(company.size ? [{ key: applicationCounterKey(r.company), attributes: company }] : []), ...own];
}

/** Transaction items that add `delta` to every counter an application counts in (create: +1). */
export function counterUpdates(r: ApplicationRecord, delta: number, options: { fold?: CounterFold; jobFold?: CounterFold } = {}) {
  return counterTargets(r, options).map(({ key, attributes }) => ({
    Update: counterAdd(key, new Map([...attributes].map(([a, n]) => [a, a === FOLDED_COUNT ? n : n * delta]))),
  }));
}

/** The transaction item that moves one application's `sync_status` total from one status to another. */
export function syncStatusCounterMove(companyId: number, from: string, to: string) {
  const moves = new Map([[totalsAttribute('sync_status', from), -1]]).set(totalsAttribute('sync_status', to), 1);
  return { Update: counterAdd(applicationCounterKey(companyId), moves) };
}
