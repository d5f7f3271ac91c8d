/**
 * A partner's company search document (issue 11, target 4; P179): the lower-case search fields of all its
 * companies packed into a few items, so that a `name`/`search` contains filter reads a few kilobytes instead
 * of an index entry per company (whose keys alone are ~105 bytes). The document is split into
 * `SEARCH_SHARDS` items by company id (`SEARCH#PARTNER#<pid>` / `SHARD#<nn>`), each the raw-deflated JSON of
 * its entries; one Query reads them all. Every company write keeps its entry in the same transaction,
 * conditional on the shard's revision (`company-store.ts`: `createCompany`, `writeCompanyChange`). A company's
 * entry (`searchEntryOf`) and its search text, which SLIM carries too, are derived here from the record.
 */
import { deflateRawSync, inflateRawSync } from 'node:zlib';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { queryAll } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { COMPANY_SCAN_FILTERS } from '#companies/company-filters.js';
import type { CompanyRecord } from '#companies/company-schema.js';

export const SEARCH_SHARDS = 16;

/** One company: its id, status, lower-case name and lower-case search text (name, ATS slug, partner company id). */
export type SearchEntry = [id: number, status: string, name: string, search: string];

export interface SearchShard {
  key: { PK: string; SK: string };
  entries: Map<number, SearchEntry>;
  /** 0: the shard does not exist yet. */
  rev: number;
}

/** Separates the fields of the `search` haystack; a search term containing it is answered without the index. */
export const SEARCH_SEPARATOR = '\n';

/** The fields `search` matches (`company-filters.ts`): name, ATS slug and partner company id. */
const SEARCH_FIELDS = COMPANY_SCAN_FILTERS.find((d) => d.name === 'search')!.serve.scan.of;

/** The search haystack: the fields `search` matches, lower case, one separator apart. */
export function companySearchText(c: CompanyRecord): string {
  return SEARCH_FIELDS.map((field) => (c[field] ?? '').toLowerCase()).join(SEARCH_SEPARATOR);
}

/** A company's entry in its partner's search document (P179): what the contains filters and `status` read. */
export function searchEntryOf(c: CompanyRecord): SearchEntry {
  return [c.id, c.status, c.name.toLowerCase(), companySearchText(c)];
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

function sameEntry(a: SearchEntry | undefined, b: SearchEntry): boolean {
  return a !== undefined && a.every((value, i) => value === b[i]);
}

/**
 * The transaction item that puts the shard back with `entry` in it, or undefined when it holds that entry
 * already. Conditional on the revision read: a concurrent writer of the same shard makes the transaction
 * fail, and the caller reads again.
 */
export function searchShardPut(shard: SearchShard, entry: SearchEntry) {
  if (sameEntry(shard.entries.get(entry[0]), entry)) return undefined;
  const entries = new Map(shard.entries).set(entry[0], entry);
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
