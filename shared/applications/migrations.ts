/**
 * Data migrations as code (`hiring-admin migrate`). Each step brings items written under an older layout
 * to the current one. A step is idempotent (an item carries the layout it is in, and is migrated in one
 * transaction with everything it adds), resumes after a crash (its Scan position is saved after every
 * page) and reports its progress.
 */
import { GetCommand, PutCommand, ScanCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  ABSENT_SLOT_FILTERS,
  APPLICATION_FILTER_SLOTS,
  APPLICATION_INDEX_VERSION,
  FILTER_TOTALS_VERSION,
  counterUpdates,
  jobValueCounterUpdates,
  fromApplicationItem,
  toApplicationItem,
} from '#applications/applications.js';
import { COMPANY_INDEX_VERSION, companySortKeys, indexCompanySearch, migrateCompanyItem } from '#companies/companies.js';
import { config, db } from '#platform/clients.js';
import { isConditionFailure } from '#platform/errors.js';
import { compactCreatedSort, keys } from '#platform/keys.js';
import { partitionKeyOf, tableDefinition } from '#platform/table.js';

export interface MigrationProgress {
  name: string;
  scanned: number;
  migrated: number;
  done: boolean;
}

/** A migration's conditional write: true when it was made, false when its condition found the item migrated. */
async function written(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

interface Step {
  name: string;
  description: string;
  /** Which items the step looks at, as a Scan filter on items not yet in the new layout. */
  filter: { expression: string; values: Record<string, unknown> };
  /** Migrates one item; false when another writer got there first. */
  migrate(item: Record<string, unknown>): Promise<boolean>;
}

/** The attributes the v2 layout added: the keys of the slot and date indexes (GSI1's keys were there before). */
const LAYOUT_V2_ATTRIBUTES = [
  ...new Set(
    tableDefinition.globalSecondaryIndexes
      .filter((index) => /^(SLOT|DATE)\d$/.test(index.name))
      .flatMap((index) => [index.partitionKey, index.sortKey])
      .filter((name) => name !== 'GSI1PK'),
  ),
];

/** Applications (issue 11): the exact-filter slot and date index attributes, and the per-filter totals. */
const applicationIndexes: Step = {
  name: 'application-indexes-v2',
  description: 'Application index attributes (filter slots, date ranges) and per-filter counters',
  filter: {
    expression: 'begins_with(PK, :prefix) AND SK = :sk AND (attribute_not_exists(index_version) OR index_version < :version)',
    values: { ':prefix': 'APPLICATION#', ':sk': 'APPLICATION', ':version': FILTER_TOTALS_VERSION },
  },
  async migrate(item) {
    const record = fromApplicationItem(item);
    // Straight to the current layout: every total it counts in, the job values' ones (P181) included.
    const target = toApplicationItem(record);
    const names: Record<string, string> = {};
    const values: Record<string, unknown> = { ':version': FILTER_TOTALS_VERSION };
    const sets: string[] = [];
    for (const [i, name] of [...LAYOUT_V2_ATTRIBUTES, 'index_version'].entries()) {
      if (target[name] === undefined) continue;
      names[`#a${i}`] = name;
      values[`:a${i}`] = target[name];
      sets.push(`#a${i} = :a${i}`);
    }
    return written(
      db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: config().tableName,
                Key: keys.application(record.id),
                UpdateExpression: `SET ${sets.join(', ')}`,
                ConditionExpression: 'attribute_exists(PK) AND (attribute_not_exists(index_version) OR index_version < :version)',
                ExpressionAttributeNames: names,
                ExpressionAttributeValues: values,
              },
            },
            // The company total counted it from the start; the per-filter totals count it from now.
            ...counterUpdates(record, 1, { total: false }),
          ],
        }),
      ),
    );
  },
};

/**
 * The totals of `partner_job_id` and `agency_job_id` values (issue 11, P181): an application of layout 2 counts
 * in every other total already; its job values are added to their own counter items (`unfolded`) in the
 * conditional transaction that moves it to layout 3, so once only.
 */
const jobValueTotals: Step = {
  name: 'job-value-totals-v1',
  description: 'Totals of partner_job_id and agency_job_id values',
  filter: {
    expression: 'begins_with(PK, :prefix) AND SK = :sk AND index_version = :from',
    values: { ':prefix': 'APPLICATION#', ':sk': 'APPLICATION', ':from': FILTER_TOTALS_VERSION },
  },
  async migrate(item) {
    const record = fromApplicationItem(item);
    return written(
      db().send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: config().tableName,
                Key: keys.application(record.id),
                UpdateExpression: 'SET index_version = :to',
                ConditionExpression: 'index_version = :from',
                ExpressionAttributeValues: { ':from': FILTER_TOTALS_VERSION, ':to': APPLICATION_INDEX_VERSION },
              },
            },
            ...jobValueCounterUpdates(record),
          ],
        }),
      ),
    );
  },
};

/**
 * Companies (issue 11): the list's slot, ordering and slim attributes, and the partner's company totals.
 * An item is counted by the same conditional transaction that sets its `index_version`, so once only.
 */
const companyIndexes: Step = {
  name: 'company-indexes-v1',
  description: 'Company index attributes (filter slots, orderings, search text) and partner company counters',
  filter: {
    expression: 'begins_with(PK, :prefix) AND SK = :sk AND (attribute_not_exists(index_version) OR index_version < :version)',
    values: { ':prefix': 'COMPANY#', ':sk': 'COMPANY', ':version': COMPANY_INDEX_VERSION },
  },
  migrate: migrateCompanyItem,
};

/**
 * Compact skip keys (issue 11): every item of a GSI1 collection (companies, jobs, applications) gets `KSK`,
 * the compact form of its `GSI1SK`, by which the KEYS index sorts. Derived from the item alone: no counters.
 */
const skipKeys: Step = {
  name: 'skip-keys-v1',
  description: 'Compact skip keys (KSK) of every collection item',
  filter: { expression: 'attribute_exists(GSI1SK) AND attribute_not_exists(KSK)', values: {} },
  async migrate(item) {
    const compact = typeof item.GSI1SK === 'string' ? compactCreatedSort(item.GSI1SK) : undefined;
    if (!compact) return false;
    return written(
      db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: 'SET KSK = :k',
          ConditionExpression: 'GSI1SK = :sk AND attribute_not_exists(KSK)',
          ExpressionAttributeValues: { ':k': compact, ':sk': item.GSI1SK },
        }),
      ),
    );
  },
};

/** The slot attributes that an application without an agency, channel or partner company id now sets too (P177). */
const ABSENT_SLOT_ATTRIBUTES = ABSENT_SLOT_FILTERS.map((filter) => partitionKeyOf(APPLICATION_FILTER_SLOTS[filter]));

/**
 * Absent slots (issue 11, P177): an application without an agency, channel or partner company id gets the
 * entry of that filter's absent slot, so that a broad filter's complement can be read as keys. Derived from
 * the item alone: no counters.
 */
const absentSlots: Step = {
  name: 'absent-slots-v1',
  description: 'Absent-value slot entries of applications (agency, channel, partner company id)',
  filter: {
    expression: `begins_with(PK, :prefix) AND SK = :sk AND (${ABSENT_SLOT_ATTRIBUTES.map((a) => `attribute_not_exists(${a})`).join(' OR ')})`,
    values: { ':prefix': 'APPLICATION#', ':sk': 'APPLICATION' },
  },
  async migrate(item) {
    const target = toApplicationItem(fromApplicationItem(item));
    const missing = ABSENT_SLOT_ATTRIBUTES.filter((name) => item[name] === undefined && typeof target[name] === 'string');
    if (!missing.length) return false;
    return written(
      db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: `SET ${missing.map((_, i) => `#a${i} = :a${i}`).join(', ')}`,
          ConditionExpression: ['attribute_exists(PK)', ...missing.map((_, i) => `attribute_not_exists(#a${i})`)].join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(missing.map((name, i) => [`#a${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(missing.map((name, i) => [`:a${i}`, target[name]])),
        }),
      ),
    );
  },
};

/** Companies' search documents (issue 11, P179): every company's entry in its partner's document. */
const companySearch: Step = {
  name: 'company-search-v1',
  description: "Every company's entry in its partner's search document",
  filter: { expression: 'begins_with(PK, :prefix) AND SK = :sk', values: { ':prefix': 'COMPANY#', ':sk': 'COMPANY' } },
  migrate: indexCompanySearch,
};

/**
 * Compact ordering keys of companies (issue 11, P182): `D1SK`, `D2SK` and `GSI4SK` rewritten from the forms
 * before P182 (the name as UTF-16 hex, the ISO `updated_at` and the status with a 16-digit id). Derived from the
 * item alone; conditional on the keys it read, so a company changed meanwhile (which wrote compact keys
 * itself) is left as it is.
 */
const companySortKeyStep: Step = {
  name: 'company-sort-keys-v2',
  description: 'Compact ordering keys (D1SK, D2SK, GSI4SK) of companies',
  filter: {
    expression: 'begins_with(PK, :prefix) AND SK = :sk AND attribute_exists(D1SK)',
    values: { ':prefix': 'COMPANY#', ':sk': 'COMPANY' },
  },
  async migrate(item) {
    const target: Record<string, string> = companySortKeys({
      id: Number(item.id),
      name: String(item.name ?? ''),
      updated_at: String(item.updated_at ?? ''),
      status: String(item.status ?? '') as never,
    });
    const changed = Object.keys(target).filter((name) => item[name] !== target[name]);
    if (!changed.length) return false;
    return written(
      db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: `SET ${changed.map((_, i) => `#k${i} = :new${i}`).join(', ')}`,
          ConditionExpression: changed.map((_, i) => `#k${i} = :old${i}`).join(' AND '),
          ExpressionAttributeNames: Object.fromEntries(changed.map((name, i) => [`#k${i}`, name])),
          ExpressionAttributeValues: Object.fromEntries(
            changed.flatMap((name, i) => [
              [`:new${i}`, target[name]],
              [`:old${i}`, item[name]],
            ]),
          ),
        }),
      ),
    );
  },
};

export const MIGRATIONS: readonly Step[] = [
  applicationIndexes,
  companyIndexes,
  skipKeys,
  absentSlots,
  companySearch,
  jobValueTotals,
  companySortKeyStep,
];

async function progressOf(step: Step): Promise<MigrationProgress & { lastKey?: Record<string, unknown> }> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.migration(step.name), ConsistentRead: true }));
  const item = out.Item ?? {};
  return {
    name: step.name,
    scanned: Number(item.scanned ?? 0),
    migrated: Number(item.migrated ?? 0),
    done: item.done === true,
    lastKey: typeof item.last_key === 'string' ? (JSON.parse(item.last_key) as Record<string, unknown>) : undefined,
  };
}

/** Runs every step to its end, from where it stopped; `report` hears of each page (of `pageSize` scanned items). */
export async function runMigrations(
  report: (progress: MigrationProgress) => void = () => {},
  options: { pageSize?: number } = {},
): Promise<MigrationProgress[]> {
  const results: MigrationProgress[] = [];
  for (const step of MIGRATIONS) {
    const progress = await progressOf(step);
    while (!progress.done) {
      const page = await db().send(
        new ScanCommand({
          TableName: config().tableName,
          FilterExpression: step.filter.expression,
          ...(Object.keys(step.filter.values).length ? { ExpressionAttributeValues: step.filter.values } : {}),
          ExclusiveStartKey: progress.lastKey,
          Limit: options.pageSize ?? 500,
        }),
      );
      progress.scanned += page.ScannedCount ?? 0;
      for (const item of page.Items ?? []) if (await step.migrate(item)) progress.migrated += 1;
      progress.lastKey = page.LastEvaluatedKey;
      progress.done = !page.LastEvaluatedKey;
      await db().send(
        new PutCommand({
          TableName: config().tableName,
          Item: {
            ...keys.migration(step.name),
            scanned: progress.scanned,
            migrated: progress.migrated,
            done: progress.done,
            ...(progress.lastKey ? { last_key: JSON.stringify(progress.lastKey) } : {}),
          },
        }),
      );
      report({ name: step.name, scanned: progress.scanned, migrated: progress.migrated, done: progress.done });
    }
    results.push({ name: step.name, scanned: progress.scanned, migrated: progress.migrated, done: true });
  }
  return results;
}
