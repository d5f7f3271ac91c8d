/**
 * Key formats of the single table, in one place. Every item has PK/SK; index keys are set only on
 * the items that belong in that index (sparse indexes). Numbers in sort keys are zero-padded so that
 * string order equals numeric order.
 */
export type Key = { PK: string; SK: string };

const pad = (n: number) => String(n).padStart(16, '0');

export const PENDING_UPLOAD_SHARDS = 4;
export const SYNC_DUE_SHARDS = 16;
/** Partitions of the event outbox (P115): an application's events always share one, so they keep their order. */
export const OUTBOX_SHARDS = 8;
/** Partitions of the DUE index's outcome-watch entries (P298): a reading pass reads each with one paged Query. */
export const OUTCOME_WATCH_SHARDS = 4;

export const keys = {
  partner: (id: number): Key => ({ PK: `PARTNER#${id}`, SK: 'PARTNER' }),
  company: (id: number): Key => ({ PK: `COMPANY#${id}`, SK: 'COMPANY' }),
  /** Reserves a company slug so two companies never share one. */
  companySlug: (slug: string): Key => ({ PK: `COMPANYSLUG#${slug}`, SK: 'COMPANYSLUG' }),
  /** An API key is found by the SHA-256 of its secret; the id item points back for revocation. */
  apiKey: (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  apiKeyId: (id: number): Key => ({ PK: `APIKEYID#${id}`, SK: 'APIKEYID' }),
  job: (companyId: number, id: number): Key => ({ PK: `COMPANY#${companyId}`, SK: `JOB#${pad(id)}` }),
  /** A talent channel by id, and a copy under its slug (channels do not change once created). */
  channel: (id: number): Key => ({ PK: `CHANNEL#${id}`, SK: 'CHANNEL' }),
  channelSlug: (slug: string): Key => ({ PK: `CHANNELSLUG#${slug}`, SK: 'CHANNELSLUG' }),
  /**
   * An apply channel's inbound side (P196): its format and token generation, beside the talent channel under
   * its id (token checks) and under its slug (a company's entitled slugs, one BatchGet); revocation updates both.
   */
  applyChannel: (id: number): Key => ({ PK: `CHANNEL#${id}`, SK: 'APPLY' }),
  applyChannelSlug: (slug: string): Key => ({ PK: `CHANNELSLUG#${slug}`, SK: 'APPLY' }),
  /** An apply channel's signing secret, sealed (D18): an item of its own, so no channel read carries it. */
  applyChannelSecret: (id: number): Key => ({ PK: `CHANNEL#${id}`, SK: 'APPLYSECRET' }),
  /**
   * Where an apply channel reports dispositions back to its board (D22, P315): a `generic` channel's disposition
   * URL, an `indeed` channel's OAuth client id and sealed client secret. An item of its own, like the secret.
   */
  applyChannelDisposition: (id: number): Key => ({ PK: `CHANNEL#${id}`, SK: 'DISPOSITION' }),
  /** A channel's dispositions waiting to go out, oldest first (P316), and the channel's flush state beside them. */
  disposition: (channelId: number, sort: string): Key => ({ PK: `DISPOSITIONS#${channelId}`, SK: `Q#${sort}` }),
  dispositionState: (channelId: number): Key => ({ PK: `DISPOSITIONS#${channelId}`, SK: 'STATE' }),
  /**
   * A delivery an apply channel made for a company, by the hash of the channel's delivery id (`webhook-id`),
   * written with the application it created (replays find it, P202); expiring.
   */
  applyDelivery: (channelId: number, companyId: number, idHash: string): Key => ({
    PK: `APPLYDELIVERY#${channelId}#${companyId}#${idHash}`,
    SK: 'APPLYDELIVERY',
  }),
  /**
   * A board's duplicate window (Indeed: same job and e-mail within 120 days, P203): the job and a keyed hash of
   * the e-mail, never the address; written with the application it created, expiring with the window.
   */
  applyDuplicate: (channelId: number, companyId: number, jobId: number, emailHash: string): Key => ({
    PK: `APPLYDUP#${channelId}#${companyId}#${jobId}#${emailHash}`,
    SK: 'APPLYDUP',
  }),
  /** Applications are keyed by their own id, spreading a big company's writes over many partitions. */
  application: (id: number): Key => ({ PK: `APPLICATION#${id}`, SK: 'APPLICATION' }),
  /**
   * The claim of an application's next ATS (`sync`) or e-mail submission attempt, beside it: a small item of its
   * own, so that claiming does not rewrite the application and its index entries (P194).
   */
  submissionClaim: (id: number, field: 'sync' | 'email'): Key => ({ PK: `APPLICATION#${id}`, SK: `CLAIM#${field}` }),
  /**
   * An application whose outcome is read back from its ATS (D21, P298), beside it: a small item of its own with
   * a DUE entry, written when the ATS accepted the application and deleted at a final outcome.
   */
  outcomeWatch: (id: number): Key => ({ PK: `APPLICATION#${id}`, SK: 'OUTCOMEWATCH' }),
  /**
   * One ATS call made for an application (issue 44, D23), beside it: sorted by when it was made, then the attempt
   * and the call's place in it, so that a Query in reverse reads the log newest first; expiring (DELIVERY_LOG_DAYS).
   */
  deliveryLog: (id: number, sort: string): Key => ({ PK: `APPLICATION#${id}`, SK: `${DELIVERY_LOG_PREFIX}${sort}` }),
  /** One job import run of a company and its ATS calls (issue 44): the run `<sort>`, its calls `<sort>#CALL#<n>`; expiring. */
  jobImportRun: (companyId: number, sort: string): Key => ({ PK: `COMPANY#${companyId}`, SK: `${JOB_IMPORT_RUN_PREFIX}${sort}` }),
  /**
   * A company's inbound ATS webhook (issue 43, P310): found by the SHA-256 of the URL's random token (the token
   * itself is never a key), pointing at the company; its signing secret is sealed on it (D18).
   */
  atsWebhook: (tokenHash: string): Key => ({ PK: `ATSWEBHOOK#${tokenHash}`, SK: 'ATSWEBHOOK' }),
  /** The company's side of its inbound ATS webhook: the token and secret, sealed, to show them again (P310). */
  atsWebhookOf: (companyId: number): Key => ({ PK: `COMPANY#${companyId}`, SK: 'ATSWEBHOOK' }),
  /**
   * How an ATS webhook names a delivered application (P311): a keyed hash of one of its references (the ATS's id,
   * or the candidate's e-mail where the ATS returns no id), per company, one item per application; expiring.
   */
  atsRef: (companyId: number, refHash: string, applicationId: number): Key => ({
    PK: `ATSREF#${companyId}#${refHash}`,
    SK: `APPLICATION#${pad(applicationId)}`,
  }),
  /**
   * A link a webhook could not make yet (P348): Lever's `applicationCreated` before the sync worker kept the
   * application's reference. Keyed by the hash of the reference later webhooks name (the opportunity), per company;
   * it holds the reference that will name the application. Expiring.
   */
  atsRefParked: (companyId: number, refHash: string): Key => ({ PK: `ATSREF#${companyId}#${refHash}`, SK: 'PARKED' }),
  /** An ATS webhook delivery already taken (P312, replays), by the hash of its signature; expiring. */
  atsWebhookSeen: (companyId: number, signatureHash: string): Key => ({ PK: `ATSHOOKSEEN#${companyId}#${signatureHash}`, SK: 'SEEN' }),
  /** The external apply reminder's due item (P207): by shard of the application id, ordered by due time. */
  externalApplyDue: (id: number, due: string): Key => ({ PK: `EXTAPPLYDUE#${id % 4}`, SK: `${due}#${pad(id)}` }),
  /** Block-allocated id counter of one entity type. */
  idCounter: (entity: string): Key => ({ PK: `IDCOUNTER#${entity}`, SK: 'IDCOUNTER' }),
  /** An attachment object uploaded for a create that has not committed yet (deleted in its transaction). */
  pendingUpload: (objectKey: string): Key => ({ PK: `PENDINGUPLOAD#${objectKey}`, SK: 'PENDINGUPLOAD' }),
  /** A company's ATS credentials, sealed (D18); a separate item so that no company read ever carries them. */
  atsCredentials: (companyId: number): Key => ({ PK: `COMPANY#${companyId}`, SK: 'ATSCREDENTIALS' }),
  /** Unfiltered total of a collection (for example a company's jobs), kept in the create transaction. */
  countOf: (collection: string): Key => ({ PK: `COUNT#${collection}`, SK: 'COUNT' }),
  /** Where retention's walk of a company's applications stopped (P233). */
  retentionMark: (companyId: number): Key => ({ PK: `COMPANY#${companyId}`, SK: 'RETENTION' }),
  /** Where the sync sweeper starts reading each sync-due shard (P242). */
  syncSweepMarks: (): Key => ({ PK: 'SYNCSWEEP', SK: 'MARKS' }),
  /**
   * An event waiting in the outbox (P115) until the relay has published it: partition `OUTBOX#<shard>`, sorted
   * by when it happened, then the application's event sequence, then the event id.
   */
  outbox: (shard: number, sort: string): Key => ({ PK: `${OUTBOX_PREFIX}${shard}`, SK: sort }),
  /** A partner's webhook endpoint (D19), in the partner's partition: the fan-out reads them with one Query. */
  webhook: (partnerId: number, id: number): Key => ({ PK: `PARTNER#${partnerId}`, SK: `WEBHOOK#${pad(id)}` }),
  /** Which partner a webhook endpoint id belongs to (`webhook delete ID`, `webhook deliveries ID`). */
  webhookId: (id: number): Key => ({ PK: `WEBHOOKID#${id}`, SK: 'WEBHOOKID' }),
  /** One delivery attempt to an endpoint, newest last; expires (a bounded history). */
  webhookAttempt: (id: number, at: string, attemptId: string): Key => ({ PK: `WEBHOOKID#${id}`, SK: `ATTEMPT#${at}#${attemptId}` }),
  /**
   * A lookup item (P241): a base-table item in the partition an exact filter's slot would have
   * (`<collection>#<filter>=<value>`), sorted by its record's collection sort (`GSI1SK`), from which the
   * record's id is read (`idOfCollectionSort`). It holds nothing else.
   */
  lookup: (partition: string, collectionSort: string): Key => ({ PK: partition, SK: collectionSort }),
  /** A company's magic link, found by the SHA-256 of its token (D20); the token itself is never a key. */
  magicLink: (hash: string): Key => ({ PK: `MAGICLINK#${hash}`, SK: 'MAGICLINK' }),
  /** A fixed-window attempt counter (connect page limits), expiring with its window. */
  attempts: (scope: string, window: number): Key => ({ PK: `ATTEMPTS#${scope}`, SK: `WINDOW#${window}` }),
  /** A connect form already submitted (replay protection), expiring with the form. */
  formUse: (nonce: string): Key => ({ PK: `FORMUSE#${nonce}`, SK: 'FORMUSE' }),
  /** The application a create with an `Idempotency-Key` made (P268), by the hash of its scope; expiring after 24 h. */
  creationClaim: (hash: string): Key => ({ PK: `CREATECLAIM#${hash}`, SK: 'CLAIM' }),
  /** One stored part of a list's ids for a walk by `next` (P260), expiring; the list routes write only these. */
  walk: (walkId: string, part: number): Key => ({ PK: `${WALK_PREFIX}${walkId}`, SK: `PART#${part}` }),
} as const;

/** The sort key prefixes of an application's delivery log and of a company's job import runs (issue 44). */
export const DELIVERY_LOG_PREFIX = 'DELIVERY#';
export const JOB_IMPORT_RUN_PREFIX = 'IMPORTRUN#';

/** The partition key prefix of a walk's stored ids (the list routes' only writes, P260). */
export const WALK_PREFIX = 'WALK#';

/** The partition key prefix of outbox items (the stream filter of the relay selects on it). */
export const OUTBOX_PREFIX = 'OUTBOX#';

/**
 * The attribute of an application item that carries its latest event (P240): the envelope as the relay
 * publishes it, set by the write that records the change (the stream filter of the relay selects on it).
 */
export const ITEM_EVENT_ATTRIBUTE = 'ev';

/** Index keys: a collection ordered by creation time (COLLECTION) and exact lookups (LOOKUP). */
const outcomeWatchShard = (shard: number) => `OUTCOMEWATCH#${shard}`;

export const indexKeys = {
  partnerCompanies: (partnerId: number) => `PARTNER#${partnerId}#COMPANIES`,
  companyJobs: (companyId: number) => `COMPANY#${companyId}#JOBS`,
  /** Every company, in creation order (LOOKUP): the scheduled job import walks it (a few thousand small items at most). */
  allCompanies: () => 'COMPANIES',
  /** Every webhook endpoint, in creation order (COLLECTION): `webhook list` without a partner. */
  allWebhooks: () => 'WEBHOOKS',
  createdSort: (createdAt: string, id: number) => `${createdAt}#${pad(id)}`,
  /**
   * The creation order every collection index sorts by (GSI1SK, shared by LOOKUP, SLIM and the slots, P200):
   * the created sort in its compact form (P235), 20 characters.
   */
  collectionSort: (createdAt: string, id: number) => {
    const created = `${createdAt}#${pad(id)}`;
    return compactCreatedSort(created) ?? created;
  },
  jobByExternalId: (companyId: number, externalId: string) => `COMPANY#${companyId}#JOBEXT#${externalId}`,
  companyApplications: (companyId: number) => `COMPANY#${companyId}#APPS`,
  applicationsByEmail: (companyId: number, email: string) => `COMPANY#${companyId}#APPEMAIL#${email.toLowerCase()}`,
  /** Applications whose sync (or e-mail fallback) is still due, by when the sweeper should look again. */
  syncDue: (applicationId: number) => syncDueShard(applicationId % SYNC_DUE_SHARDS),
  /** Applications whose outcome is read back (P298), sorted by `applied_at`: a pass reads those applied since the tracking window opened. */
  outcomeWatch: (applicationId: number) => outcomeWatchShard(applicationId % OUTCOME_WATCH_SHARDS),
  /** The DUE partition of one shard of the outcome watches (P298). */
  outcomeWatchShard: (shard: number) => outcomeWatchShard(shard),
  /** The partition of an exact-filter slot: the members of `collection` whose `filter` equals `value`. */
  filterSlot: (collection: string, filter: string, value: string | number | boolean) => `${collection}#${filter}=${value}`,
  /**
   * The slot partition of the members of `collection` that have no `filter` value (never a value's: those
   * have `=`), so that a filter's complement can be read as keys (P177).
   */
  /** A date index's sort key: the date, then the created sort, so a range read can be put in list order. */
  dateSort: (date: string, createdAt: string, id: number) => `${date}#${createdAt}#${pad(id)}`,
} as const;

/**
 * The attributes of an item that expires at `epochSeconds`: the TTL attribute DynamoDB deletes by, on AWS
 * within days and locally within seconds (DynamoDB Local), so nothing may depend on when it goes.
 */
export function expiringAt(epochSeconds: number): { expires_at: number } {
  return { expires_at: epochSeconds };
}

/**
 * The DUE-index entry of a pending upload: found by the reconciler once `dueEpochSeconds` has passed. It
 * has no TTL attribute, so DynamoDB never deletes the marker before the reconciler has deleted the object.
 */
export function pendingUploadDue(dueEpochSeconds: number, objectKey: string): { DUEPK: string; DUESK: string } {
  let hash = 0;
  for (const char of objectKey) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return { DUEPK: pendingUploadShard(hash % PENDING_UPLOAD_SHARDS), DUESK: dueSort(dueEpochSeconds) };
}

/** The DUE partition of one shard of the applications whose sync is due (the sweeper reads each). */
export const syncDueShard = (shard: number) => `SYNCDUE#${shard}`;

/** The DUE partition of one shard of the pending-upload markers. */
export const pendingUploadShard = (shard: number) => `PENDINGUPLOAD#${shard}`;

/** A DUE sort key: the epoch second, zero-padded so that keys sort as times. */
export const dueSort = (epochSeconds: number) => String(epochSeconds).padStart(12, '0');

/** The COLLECTION entry of a webhook endpoint: every endpoint, in creation order (`webhook list` without a partner). */
export function webhookCollectionEntry(createdAt: string, id: number): { GSI1PK: string; GSI1SK: string } {
  return { GSI1PK: indexKeys.allWebhooks(), GSI1SK: indexKeys.collectionSort(createdAt, id) };
}

/**
 * Compact created sort (GSI1SK since P235; the KEYS index's KSK before): the created sort `<created_at>#<id:016>`
 * as base36 epoch milliseconds (9 digits) and base36 id (11 digits), in the same order in 20 characters instead
 * of 41, so a bare `page=N` skips ~130 records per unit instead of ~80.
 */
const SKIP_MS_WIDTH = 9;
const SKIP_ID_WIDTH = 11;

export function compactCreatedSort(createdSort: string): string | undefined {
  const at = createdSort.lastIndexOf('#');
  const ms = Date.parse(createdSort.slice(0, at));
  const id = Number(createdSort.slice(at + 1));
  if (at < 0 || !Number.isSafeInteger(ms) || ms < 0 || !Number.isSafeInteger(id) || new Date(ms).toISOString() !== createdSort.slice(0, at))
    return undefined;
  return ms.toString(36).padStart(SKIP_MS_WIDTH, '0') + id.toString(36).padStart(SKIP_ID_WIDTH, '0');
}

export function createdSortOfCompact(compact: string): string {
  const ms = parseInt(compact.slice(0, -SKIP_ID_WIDTH), 36);
  const id = parseInt(compact.slice(-SKIP_ID_WIDTH), 36);
  return indexKeys.createdSort(new Date(ms).toISOString(), id);
}

/** The `created_at` a collection sort key holds (compact, or the long form when it could not be compacted). */
export function createdAtOfCollectionSort(sort: string): string {
  const created = sort.includes('#') ? sort : createdSortOfCompact(sort);
  return created.slice(0, created.lastIndexOf('#'));
}

/** The id a collection sort key ends in (compact, or the long form). */
export function idOfCollectionSort(sort: string): number {
  const created = sort.includes('#') ? sort : createdSortOfCompact(sort);
  return Number(created.slice(created.lastIndexOf('#') + 1));
}

/** The compact key bound of `created_at >= <iso>` (every compact key of a later or equal creation is ≥ it). */
export function compactFrom(iso: string): string {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) || ms <= 0 ? '0' : ms.toString(36).padStart(SKIP_MS_WIDTH, '0');
}

/** The created sort (`<created_at>#<id:016>`) inside a date index's sort key. */
export function createdSortOfDateSort(dateSort: string): string {
  return dateSort.slice(dateSort.indexOf('#') + 1);
}

export const collections = {
  companyJobs: (companyId: number) => `COMPANY#${companyId}#JOBS`,
  companyApplications: (companyId: number) => `COMPANY#${companyId}#APPS`,
} as const;
