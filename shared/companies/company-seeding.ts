/**
 * The batched seeding path for companies (P335), as `seedApplications` is for applications: tests and benchmarks
 * that need many companies to exist (not the create under test) write them in batches instead of a transaction
 * each, and without the create's conflicts on the partner's counter item and search shards. The items are the
 * create's own: each record checked and built by `company-store.ts`'s functions, the company item with every
 * index attribute its entity declares (`newCompanyItem`), its slug and lookup items, the partner's counter moved
 * by the sum of what each create adds, and each search shard written once with every new entry. Nothing in the
 * service calls it (the interface has no create endpoint; the admin tool creates one company at a time).
 */
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetItems, batchPut, primaryKeyOf } from '#platform/batch.js';
import { db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { ConflictError, NotFoundError, invalidField, isConditionFailure } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { keys } from '#platform/keys.js';
import { companyLookupItems, companySlugItem, newCompaniesCounterAdd, newCompanyItem, slugify } from '#companies/company-layout.js';
import { readSearchShard, searchEntryOf, searchShardKey, searchShardPut, type SearchEntry } from '#companies/company-search.js';
import { checkNewCompany, newCompanyRecord, type NewCompany } from '#companies/company-store.js';
import { toCompany, type Company, type CompanyRecord } from '#companies/company-schema.js';

/** A new company the batch can seed: anything the create takes but an invite's link, and when it was made. */
export type SeededCompany = Omit<NewCompany, 'magic_link'> & {
  /** Its `created_at` (and `updated_at`), as if created then; the batch's instant when absent. */
  created_at?: string;
};

/** A D7 timestamp, as `isoNow` makes it. */
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** Tries of a shard's conditional put (another writer may change it between the read and the put). */
const SHARD_ATTEMPTS = 8;

/**
 * Seeds `inputs` as companies, checked as the create checks them (a D2 error naming the field, a missing partner a
 * 404, a taken id a 409). Those without a `created_at` are made at one instant, the batch's: their order is their
 * ids' (ties are ordered by id, as every list orders them). Returns the companies in the order given.
 */
export async function seedCompanies(inputs: readonly SeededCompany[]): Promise<Company[]> {
  for (const input of inputs) {
    await checkNewCompany(input);
    const at = input.created_at;
    if (at !== undefined && !(ISO_TIMESTAMP.test(at) && !Number.isNaN(Date.parse(at)) && new Date(at).toISOString() === at)) {
      throw invalidField('created_at', 'Must be a D7 timestamp.');
    }
  }
  const partners = [...new Set(inputs.map((input) => input.partner))];
  const found = await batchGetItems(partners.map(keys.partner));
  const missing = partners.find((partner) => !found.has(primaryKeyOf(keys.partner(partner))));
  if (missing !== undefined) throw new NotFoundError(`Partner ${missing} does not exist.`);
  const timestamp = isoNow();
  const records: CompanyRecord[] = [];
  for (const input of inputs) {
    records.push(newCompanyRecord(input, input.id ?? (await nextId('company')), input.created_at ?? timestamp));
  }
  await pickSlugs(records);
  await batchPut(records.flatMap((r) => [companySlugItem(r.slug, r.id), newCompanyItem(r), ...companyLookupItems(r)]));
  for (const partner of partners) {
    const theirs = records.filter((r) => r.partner === partner);
    await db().send(new UpdateCommand(newCompaniesCounterAdd(partner, theirs)));
  }
  await writeSearchEntries(records);
  return records.map((r) => toCompany(r));
}

/**
 * Each company's slug, as the create picks it: the plain one if free (in the table and earlier in the batch),
 * else suffixed with the id; a 409 when that is taken too, or when a given id is.
 */
async function pickSlugs(records: CompanyRecord[]): Promise<void> {
  const plain = (r: CompanyRecord) => slugify(r.name);
  const suffixed = (r: CompanyRecord) => `${slugify(r.name)}-${r.id}`;
  const taken = await batchGetItems(
    records.flatMap((r) => [keys.companySlug(plain(r)), keys.companySlug(suffixed(r)), keys.company(r.id)]),
  );
  const isTaken = (slug: string) => taken.has(primaryKeyOf(keys.companySlug(slug)));
  const used = new Set<string>();
  for (const r of records) {
    if (taken.has(primaryKeyOf(keys.company(r.id)))) throw new ConflictError(`Company ${r.id} exists already.`);
    r.slug = isTaken(plain(r)) || used.has(plain(r)) ? suffixed(r) : plain(r);
    if (isTaken(r.slug) || used.has(r.slug)) throw new ConflictError('Could not reserve a unique slug for the company.');
    used.add(r.slug);
  }
}

/** Every record's entry in its partner's search document: each shard read and put back once, with all its new entries. */
async function writeSearchEntries(records: CompanyRecord[]): Promise<void> {
  const shards = new Map<string, { partner: number; entries: SearchEntry[] }>();
  for (const r of records) {
    const key = primaryKeyOf(searchShardKey(r.partner, r.id));
    const shard = shards.get(key) ?? { partner: r.partner, entries: [] };
    shards.set(key, shard);
    shard.entries.push(searchEntryOf(r));
  }
  await Promise.all(
    [...shards.values()].map(async ({ partner, entries }) => {
      for (let attempt = 1; ; attempt++) {
        const put = searchShardPut(await readSearchShard(partner, entries[0][0]), ...entries);
        if (!put) return;
        try {
          await db().send(new PutCommand(put.Put));
          return;
        } catch (error) {
          if (!isConditionFailure(error) || attempt >= SHARD_ATTEMPTS) throw error;
        }
      }
    }),
  );
}
