/** Fixture factories: partners, companies, keys and jobs made through the same domain functions the admin tool uses. */
import { createChannel } from '#applications/channels.js';
import { createApiKey } from '#companies/api-keys.js';
import { applyChannelItems, checkApplyChannelInput } from '#companies/apply-channels.js';
import { createCompany, type NewCompany } from '#companies/company-store.js';
import { importJobs } from '#jobs/job-store.js';
import { createPartner } from '#companies/partners.js';

let sequence = 0;

export async function aPartner(name = `Partner ${++sequence}`, kind = 'job_board') {
  const partner = await createPartner(name, kind);
  const key = await createApiKey({ partner: partner.id });
  return { ...partner, key: key.key, keyId: key.id };
}

export async function aCompany(partner: number, overrides: Partial<NewCompany> = {}) {
  const company = await createCompany({
    partner,
    name: `Company ${++sequence}`,
    ats: 'sandbox',
    entitlements: ['job_sync', 'candidate_sync'],
    ...overrides,
  });
  const key = await createApiKey({ company: company.id });
  return { ...company, key: key.key, keyId: key.id };
}

export function aJob(overrides: Record<string, unknown> = {}) {
  const n = ++sequence;
  return {
    external_id: `ext-${n}`,
    title: `Job ${n}`,
    status: 'active',
    remote: 'remote',
    language: 'en',
    city: 'Berlin',
    country: 'DE',
    ...overrides,
  };
}

export async function withJobs(companyId: number, jobs: Record<string, unknown>[]) {
  return importJobs(companyId, jobs);
}

/** An apply channel of `format` (its signing secret generated unless given), as `hiring-admin channel create` makes it. */
export async function anApplyChannel(slug: string, format: 'generic' | 'indeed', secret?: string) {
  const inbound = checkApplyChannelInput({ slug, format, secret });
  const channel = await createChannel({ slug, name: slug }, (c) => applyChannelItems(c, inbound.format, inbound.secret));
  return { id: channel.id, secret: inbound.secret };
}
