/**
 * The company's shape: its lifecycle states, the stored record, what the record says about delivery (D15,
 * D17), the Company object of the interface (`toCompany`, `presentCompany`) and the PATCH schema with its
 * read-only fields. No DynamoDB here: items are `company-store.ts`'s, their layout `company-layout.ts`'s.
 */
import type { FromSchema } from 'json-schema-to-ts';
import { atsBySlug, atsSlugs } from '#companies/ats.js';
import type { Entitlement } from '#companies/entitlements.js';
import { invalidField } from '#platform/errors.js';
import { validator } from '#platform/field-errors.js';
import { loadCompanyPatchValidator } from '#generated/companies-validators.js';
import { magicLinkUrl, type StoredMagicLink } from '#companies/magic-links.js';

export const COMPANY_STATUSES = ['invited', 'requested', 'active', 'failing', 'deactivated', 'deleted'] as const;
export type CompanyStatus = (typeof COMPANY_STATUSES)[number];

/** The stored company: the writable fields plus what the service maintains. */
export interface CompanyRecord {
  id: number;
  name: string;
  slug: string;
  ats: string | null;
  partner: number;
  partner_company_id: string | null;
  website: string | null;
  logo: string | null;
  primary_color: string | null;
  street: string | null;
  city: string | null;
  country: string | null;
  postcode: string | null;
  contact_name: string | null;
  contact_email: string | null;
  contact_phone: string | null;
  jobs_last_synced_at: string | null;
  status: CompanyStatus;
  is_test: boolean;
  magic_link: string | null;
  entitlements: Entitlement[];
  /** Job used when the applied-for job is no longer published (D12). */
  fallback_job: number | null;
  /** Which ATS the stored credentials were checked against, and when (D18); absent when not connected. */
  ats_connection?: {
    ats: string;
    connected_at: string;
    /**
     * P322: outcome readings paused because the ATS rejected the credentials for them (401/403, a missing read
     * scope or permission): when, the connector's message and the credential it names. A new connection (new
     * credentials) replaces the whole object, which resumes them.
     */
    outcomes_paused?: { at: string; reason: string; credential: string | null };
    /** P351: the optional credential fields (without a default value) the company gave, by name only; absent when none. */
    optional_credentials?: string[];
  } | null;
  /** Failed job import runs in a row (D14: 3 turn the company `failing`). */
  job_import_failures?: number;
  /** The active magic link, sealed, with its hash and expiry (D20); never the token in plain text. */
  magic_link_token?: StoredMagicLink | null;
  created_at: string;
  updated_at: string;
}

/** The Company object of the interface (`toCompany` writes it in the spec's field order). */
export type Company = Omit<
  CompanyRecord,
  'entitlements' | 'fallback_job' | 'ats_connection' | 'job_import_failures' | 'magic_link_token'
> & {
  ats_name: string | null;
  job_sync_active: boolean;
  candidate_sync_active: boolean;
};

/**
 * D15: whether the company's ATS is connected: it has a connector, and either needs no credentials
 * (sandbox) or has credentials checked against that same ATS (a later change of `ats` disconnects).
 */
export function atsConnected(company: CompanyRecord): boolean {
  const integration = atsBySlug(company.ats);
  if (!integration?.connector) return false;
  return !integration.credentials || company.ats_connection?.ats === company.ats;
}

/** D15: a sync is active when the company is entitled to it and its ATS is connected. */
export function syncActive(company: CompanyRecord, entitlement: 'job_sync' | 'candidate_sync'): boolean {
  return company.entitlements.includes(entitlement) && atsConnected(company);
}

/**
 * D17: which lifecycle states deliver. `active` and `failing` companies sync and import; `invited` and
 * `requested` ones accept applications but wait until they are active; `deactivated` and `deleted` ones wait.
 */
export function deliveryAllowed(company: Pick<CompanyRecord, 'status'>): boolean {
  return company.status === 'active' || company.status === 'failing';
}

/**
 * The Company object. `magic_link` is what the caller opened (`presentCompany`); `null` without it, since the
 * stored link is sealed and opening it is asynchronous.
 */
export function toCompany(c: CompanyRecord, magicLink: string | null = null): Company {
  return {
    id: c.id,
    name: c.name,
    slug: c.slug,
    ats: c.ats,
    ats_name: atsBySlug(c.ats)?.name ?? null,
    partner: c.partner,
    partner_company_id: c.partner_company_id,
    website: c.website,
    logo: c.logo,
    primary_color: c.primary_color,
    street: c.street,
    city: c.city,
    country: c.country,
    postcode: c.postcode,
    job_sync_active: syncActive(c, 'job_sync'),
    candidate_sync_active: syncActive(c, 'candidate_sync'),
    contact_name: c.contact_name,
    contact_email: c.contact_email,
    contact_phone: c.contact_phone,
    jobs_last_synced_at: c.jobs_last_synced_at,
    status: c.status,
    is_test: c.is_test,
    magic_link: magicLink,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

/** The Company object with its active magic link opened (D20) on `base`, the service's public address; `null` when it cannot be used (P271). */
export async function presentCompany(c: CompanyRecord, base: string | undefined): Promise<Company> {
  return toCompany(c, await magicLinkUrl(c, base));
}

// ---------------------------------------------------------------------------------------------------
// Partial update

const nullableString = { type: ['string', 'null'], maxLength: 1000 } as const;
const nullableUri = { type: ['string', 'null'], format: 'http-url', maxLength: 2000 } as const;

export const companyPatchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    ats: { type: 'string', enum: atsSlugs },
    // A lookup item's partition key holds it (P241): 255 characters, as the applications' `partner_company_id`.
    partner_company_id: { type: ['string', 'null'], maxLength: 255 },
    website: nullableUri,
    logo: nullableUri,
    primary_color: { type: ['string', 'null'], pattern: '^#[0-9A-Fa-f]{6}$' },
    street: nullableString,
    city: nullableString,
    country: nullableString,
    postcode: nullableString,
    contact_name: nullableString,
    contact_email: { type: ['string', 'null'], format: 'email', maxLength: 254 },
    contact_phone: nullableString,
  },
} as const;

export type CompanyPatch = FromSchema<typeof companyPatchSchema>;

/** Fields of the Company object a client cannot set; sent back unchanged they are ignored, not refused. */
export const COMPANY_READ_ONLY_FIELDS = [
  'id',
  'slug',
  'ats_name',
  'partner',
  'job_sync_active',
  'candidate_sync_active',
  'jobs_last_synced_at',
  'status',
  'is_test',
  'magic_link',
  'created_at',
  'updated_at',
] as const;

// Pure: a bundle whose route never validates this leaves the generated validator out (tree-shaking).
const assertCompanyPatch = /* @__PURE__ */ validator<CompanyPatch>(loadCompanyPatchValidator);

export function parseCompanyPatch(body: unknown): CompanyPatch {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalidField('body', 'Must be a JSON object.');
  const writable = Object.fromEntries(
    Object.entries(body).filter(([field]) => !(COMPANY_READ_ONLY_FIELDS as readonly string[]).includes(field)),
  );
  return assertCompanyPatch(writable);
}
