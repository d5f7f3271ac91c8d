/**
 * The one table definition. The CDK stack, the local runtime and the tests all build the table from
 * this object, so the key schema, the indexes and the TTL attribute exist in exactly one place.
 */
export interface IndexDefinition {
  name: string;
  partitionKey: string;
  sortKey: string;
  projection: 'KEYS_ONLY' | 'INCLUDE';
  /** With `INCLUDE`: the non-key attributes the index carries (at most 100 over all indexes of a table). */
  include?: readonly string[];
}

export const tableDefinition = {
  partitionKey: 'PK',
  sortKey: 'SK',
  ttlAttribute: 'expires_at',
  // The event relay reads the table's stream (P115), on AWS and locally: the outbox items' INSERTs, and the
  // writes of items carrying an event, which it publishes when the new image's event is not the old image's (P240).
  streamViewType: 'NEW_AND_OLD_IMAGES',
  // Ten indexes (issue 22), each named for what it serves (P241: GSI1, GSI2, DATE1 and DATE2 before; the
  // attribute names stayed).
  globalSecondaryIndexes: [
    // Collections in creation order: a partner's companies, a company's jobs and applications. Keys only
    // (P234): a page is its keys and one BatchGet of its items, and a write that moves no key (a status move, a
    // rename) costs it nothing. Sorted by the compact created sort (P235): a bare `page=N` skips here at ~130
    // records per unit, and retention walks a company's applications oldest first.
    { name: 'COLLECTION', partitionKey: 'GSI1PK', sortKey: 'GSI1SK', projection: 'KEYS_ONLY' },
    // Sparse lookups by an exact, selective value: a job by its external id, applications by e-mail, and every
    // company (the job import's fan-out; GSI3 until P238). Keys only (P195): a lookup reads its few items by key,
    // and a write that changes no key of it costs it nothing.
    { name: 'LOOKUP', partitionKey: 'GSI2PK', sortKey: 'GSI1SK', projection: 'KEYS_ONLY' },
    // What is due at a time, keys only (P233): applications whose sync is due, by when the sweeper should look
    // at them (D12, `SYNCDUE#<shard>`); pending uploads, by when the reconciler may delete their object
    // (`PENDINGUPLOAD#<shard>`). Companies, which are never due, use it for their `status` ordering
    // (`<partner's companies>` / `<status>#<id>`). Retention needs no index: it walks KEYS (P233).
    { name: 'DUE', partitionKey: 'DUEPK', sortKey: 'DUESK', projection: 'KEYS_ONLY' },
    // Exact-filter slots: `<collection>#<filter>=<value>` in creation order (GSI1SK, the created sort), sparse
    // and keys only, so a page of one filter's matches costs its keys and the page's items (FILTER_SLOTS).
    // Filters a record has at most once and often not at all are lookup items in the base table instead (P241).
    ...([1, 2, 3, 4] as const).map(
      (n) => ({ name: `SLOT${n}`, partitionKey: `X${n}PK`, sortKey: 'GSI1SK', projection: 'KEYS_ONLY' }) as const,
    ),
    // Date ranges of a collection: `<date>#<created sort>`, keys only. APPLIED: applications' `applied_at`, jobs'
    // `last_content_update_at`, companies' name order (P182); UPDATED: `updated_at`, companies' `updated_at` order.
    { name: 'APPLIED', partitionKey: 'GSI1PK', sortKey: 'D1SK', projection: 'KEYS_ONLY' },
    { name: 'UPDATED', partitionKey: 'GSI1PK', sortKey: 'D2SK', projection: 'KEYS_ONLY' },
    // The jobs' collections with only what their filters read: contains filters scan this, not whole items.
    // Keyed by `SPK` (GSI1PK's value, set on jobs only) so that applications and companies, which it does not
    // serve, are not in it and none of their writes costs it (P199; companies left it in P253).
    {
      name: 'SLIM',
      partitionKey: 'SPK',
      sortKey: 'GSI1SK',
      projection: 'INCLUDE',
      include: ['title_lc', 'city_lc', 'status', 'remote', 'language', 'country', 'updated_at', 'last_content_update_at'],
    },
  ] satisfies IndexDefinition[],
} as const;

export type IndexName = (typeof tableDefinition.globalSecondaryIndexes)[number]['name'];

/**
 * The base table itself as a list's source (P241): a partition of lookup items (`keys.lookup`), each sorted by
 * its record's collection sort, read like a keys-only slot (`paged-query.ts`).
 */
export const TABLE = 'TABLE';

/** An index's definition by name. */
export function indexDefinition(name: IndexName): IndexDefinition & { name: IndexName } {
  const index = tableDefinition.globalSecondaryIndexes.find((i) => i.name === name);
  if (!index) throw new Error(`unknown index ${name}`);
  return index;
}

/** The partition key attribute of an index. */
export function partitionKeyOf(name: IndexName): string {
  return indexDefinition(name).partitionKey;
}

/** The sort key attribute of an index. */
export function sortKeyOf(name: IndexName): string {
  return indexDefinition(name).sortKey;
}

/** Every key attribute the table and its indexes use (all strings). */
export function keyAttributes(): string[] {
  const names = new Set<string>([tableDefinition.partitionKey, tableDefinition.sortKey]);
  for (const index of tableDefinition.globalSecondaryIndexes) {
    names.add(index.partitionKey);
    names.add(index.sortKey);
  }
  return [...names];
}

/** CreateTable input for the emulator and for tests; the CDK stack maps the same definition. */
export function createTableInput(tableName: string) {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST' as const,
    StreamSpecification: { StreamEnabled: true, StreamViewType: tableDefinition.streamViewType },
    AttributeDefinitions: keyAttributes().map((name) => ({ AttributeName: name, AttributeType: 'S' as const })),
    KeySchema: [
      { AttributeName: tableDefinition.partitionKey, KeyType: 'HASH' as const },
      { AttributeName: tableDefinition.sortKey, KeyType: 'RANGE' as const },
    ],
    GlobalSecondaryIndexes: tableDefinition.globalSecondaryIndexes.map((index) => ({
      IndexName: index.name,
      KeySchema: [
        { AttributeName: index.partitionKey, KeyType: 'HASH' as const },
        { AttributeName: index.sortKey, KeyType: 'RANGE' as const },
      ],
      Projection: {
        ProjectionType: index.projection,
        ...('include' in index && index.include ? { NonKeyAttributes: [...index.include] } : {}),
      },
    })),
  };
}
