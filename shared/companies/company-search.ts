/**
 * A partner's company search document (P179): its companies' lower-case search fields in `SEARCH_SHARDS` items of
 * raw-deflated JSON, read by one Query, so a `name`/`search` filter reads a few KB instead of an index entry per
 * company (~105 bytes of keys alone). Every company write updates its entry in the same transaction, conditional on
 * the shard's revision (`company-store.ts`). With status, the sync flags, `created_at` and `updated_at` too, an entry
 * is enough to filter by everything but `partner_company_id` and order by every field (P253, P256, P258).
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { COMPANY_SCAN_FILTERS, type CompanySlotFilter } from '#companies/company-filters.js';
import { companyFilterValue } from '#companies/company-layout.js';
import type { CompanyRecord, CompanyStatus } from '#companies/company-schema.js';

/** Shards of a partner's document: at 2,000 companies each is about 1–1.5 KB deflated, so a rename stays ≤ 10 WCU (P256). */
export const SEARCH_SHARDS = 32;

/** The record fields the contains filters match (`company-filters.ts`): name, ATS slug, partner company id. */
const SEARCHED_FIELDS = [...new Set(COMPANY_SCAN_FILTERS.flatMap((d) => d.serve.scan.of))];
export type SearchedField = (typeof SEARCHED_FIELDS)[number];

/** The boolean filters, a bit each in an entry's `flags`. */
const FLAGS = { candidate_sync_active: 1, job_sync_active: 2 } as const;

/**
 * One company: its id, status, creation time, `updated_at` as milliseconds after it (0 until a change; a number
 * deflates to a few bytes where a timestamp takes about ten), `FLAGS`, then each of `SEARCHED_FIELDS`, lower case.
 */
export type SearchEntry = [id: number, status: CompanyStatus, created_at: string, updated: number, flags: number, ...searched: string[]];

export interface SearchShard {
  key: { PK: string; SK: string };
  entries: Map<number, SearchEntry>;
  /** 0: the shard does not exist yet. */
  rev: number;
}

/** A company's entry in its partner's search document: what the contains filters, `status` and orders read. */
export function searchEntryOf(c: CompanyRecord): SearchEntry {
  const updated = Date.parse(c.updated_at) - Date.parse(c.created_at);
  const flags = Object.entries(FLAGS).reduce((sum, [name, bit]) => sum + (companyFilterValue(c, name as keyof typeof FLAGS) ? bit : 0), 0);
  return [c.id, c.status, c.created_at, updated, flags, ...SEARCHED_FIELDS.map((field) => (c[field] ?? '').toLowerCase())];
}

/** An entry's copy of a searched field, lower case. */
export const searchedField = (entry: SearchEntry, field: SearchedField): string => entry[5 + SEARCHED_FIELDS.indexOf(field)] as string;

/** An exact filter's value in an entry, as `companyFilterValue` has it; not `partner_company_id`, held lower case only. */
export function entryFilterValue(
  entry: SearchEntry,
  filter: Exclude<CompanySlotFilter, 'partner_company_id'>,
): string | boolean | undefined {
  if (filter === 'status') return entry[1];
  // An ATS slug is lower case (`ats.ts`): the copy is the value.
  if (filter === 'ats') return searchedField(entry, 'ats') || undefined;
  return (entry[4] & FLAGS[filter]) !== 0;
}

/** What the list order compares, from an entry (the name lower case, which the order compares). */
export function sortableOf(entry: SearchEntry) {
  const [id, status, created_at, updated] = entry;
  const updated_at = new Date(Date.parse(created_at) + updated).toISOString();
  return { id, status, created_at, updated_at, name: searchedField(entry, 'name') };
}

const partition = (partnerId: number) => `SEARCH#PARTNER#${partnerId}`;

export function searchShardKey(partnerId: number, companyId: number): { PK: string; SK: string } {
  return { PK: partition(partnerId), SK: `SHARD#${String(companyId % SEARCH_SHARDS).padStart(2, '0')}` };
}

function decode(doc: unknown): SearchEntry[] {
  if (!(doc instanceof Uint8Array)) return [];
  const entries: unknown = JSON.parse(inflateRawSync(doc).toString('utf8'));
  return Array.isArray(entries) ? (entries as SearchEntry[]) : [];
}

/** The shard a company's entry lives in, read consistently (a write puts it back conditional on `rev`). */
export async function readSearchShard(partnerId: number, companyId: number): Promise<SearchShard> {
  const key = searchShardKey(partnerId, companyId);
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: key, ConsistentRead: true }));
  return { key, entries: new Map(decode(out.Item?.doc).map((e) => [e[0], e])), rev: Number(out.Item?.rev ?? 0) };
}

export function sameSearchEntry(a: SearchEntry | undefined, b: SearchEntry): boolean {
  return a !== undefined && a.every((value, i) => value === b[i]);
}

/**
 * The transaction item that puts the shard back with `added` in it (one entry, or many of the batched seeding path,
 * P335), or undefined when it holds them already. Conditional on the revision read: a concurrent writer of the
 * shard makes the transaction fail; the caller reads again.
 */
export function searchShardPut(shard: SearchShard, ...added: SearchEntry[]) {
  if (added.every((entry) => sameSearchEntry(shard.entries.get(entry[0]), entry))) return undefined;
  const entries = new Map(shard.entries);
  for (const entry of added) entries.set(entry[0], entry);
  return {
    Put: {
      TableName: config().tableName,
      Item: { ...shard.key, doc: deflateRawSync(Buffer.from(JSON.stringify([...entries.values()]), 'utf8')), rev: shard.rev + 1 },
      ConditionExpression: shard.rev ? 'rev = :rev' : 'attribute_not_exists(PK)',
      ...(shard.rev ? { ExpressionAttributeValues: { ':rev': shard.rev } } : {}),
    },
  };
}

/** Every entry of a partner's document: one Query over its shards. */
export async function readSearchDocument(partnerId: number): Promise<SearchEntry[]> {
  const items = await queryAll({ KeyConditionExpression: 'PK = :pk', ExpressionAttributeValues: { ':pk': partition(partnerId) } });
  return items.flatMap((item) => decode(item.doc));
}
