/**
 * Key formats of the single table, in one place. Every item has PK/SK; index keys are set only on
 * the items that belong in that index (sparse indexes). Numbers in sort keys are zero-padded so that
 * string order equals numeric order.
 */
export type Key = { PK: string; SK: string };

const pad = (n: number) => String(n).padStart(16, '0');

export const keys = {
  partner: (id: number): Key => ({ PK: `PARTNER#${id}`, SK: 'PARTNER' }),
  company: (id: number): Key => ({ PK: `COMPANY#${id}`, SK: 'COMPANY' }),
  /** Reserves a company slug so two companies never share one. */
  companySlug: (slug: string): Key => ({ PK: `COMPANYSLUG#${slug}`, SK: 'COMPANYSLUG' }),
  /** An API key is found by the SHA-256 of its secret; the id item points back for revocation. */
  apiKey: (hash: string): Key => ({ PK: `APIKEY#${hash}`, SK: 'APIKEY' }),
  apiKeyId: (id: number): Key => ({ PK: `APIKEYID#${id}`, SK: 'APIKEYID' }),
  job: (companyId: number, id: number): Key => ({ PK: `COMPANY#${companyId}`, SK: `JOB#${pad(id)}` }),
  channel: (slug: string): Key => ({ PK: `CHANNEL#${slug}`, SK: 'CHANNEL' }),
  channelId: (id: number): Key => ({ PK: `CHANNELID#${id}`, SK: 'CHANNELID' }),
  /** Block-allocated id counter of one entity type. */
  idCounter: (entity: string): Key => ({ PK: `IDCOUNTER#${entity}`, SK: 'IDCOUNTER' }),
  /** Unfiltered total of a collection (for example a company's jobs), kept in the create transaction. */
  countOf: (collection: string): Key => ({ PK: `COUNT#${collection}`, SK: 'COUNT' }),
} as const;

/** Index keys: a collection ordered by creation time (GSI1) and exact lookups (GSI2). */
export const indexKeys = {
  partnerCompanies: (partnerId: number) => `PARTNER#${partnerId}#COMPANIES`,
  companyJobs: (companyId: number) => `COMPANY#${companyId}#JOBS`,
  createdSort: (createdAt: string, id: number) => `${createdAt}#${pad(id)}`,
  jobByExternalId: (companyId: number, externalId: string) => `COMPANY#${companyId}#JOBEXT#${externalId}`,
} as const;

export const collections = {
  companyJobs: (companyId: number) => `COMPANY#${companyId}#JOBS`,
} as const;
