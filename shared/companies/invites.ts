/**
 * Invites (D20, issue 14): a company created `invited` with an active magic link, and a fresh link for a
 * company that is not `active` yet (the old one is revoked in the same transaction). Both return the
 * Company object with `magic_link` = `{base}/connect/{token}`.
 */
import { createCompany, writeCompanyChange, requireCompany } from '#companies/company-store.js';
import { toCompany, type Company, type CompanyRecord } from '#companies/company-schema.js';
import { linkOpenFor, newMagicLink, spendMagicLinkUpdate } from '#companies/magic-links.js';
import { config } from '#platform/clients.js';
import { isoNow, now } from '#platform/clock.js';
import { ConflictError, isConditionFailure } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';

export interface Invite {
  partner: number;
  name: string;
  contact_email?: string | null;
  partner_company_id?: string | null;
}

const linkUrl = (base: string, token: string) => `${base.replace(/\/+$/, '')}/connect/${token}`;

/** `hiring-admin company invite`: a new `invited` company of the partner, with an active magic link. */
export async function inviteCompany(input: Invite, base: string): Promise<Company> {
  // The id is only known inside createCompany; the link is sealed under the id, so reserve it first.
  const id = await nextId('company');
  const link = await newMagicLink(id, input.partner);
  const company = await createCompany({
    id,
    partner: input.partner,
    name: input.name,
    status: 'invited',
    ats: null,
    contact_email: input.contact_email ?? null,
    partner_company_id: input.partner_company_id ?? null,
    // The connect page promises imports and deliveries once connected (decisions P145).
    entitlements: ['job_sync', 'candidate_sync'],
    magic_link: link,
  });
  return { ...company, magic_link: linkUrl(base, link.token) };
}

/**
 * `hiring-admin company invite-link`: a fresh link for a company in a state a link acts on (`invited`,
 * `requested`, P271); the previous link stops working. 409 `company_connected` for an `active` or `failing`
 * company, 409 `company_inactive` for a `deactivated` or `deleted` one (set it `invited` first to onboard it again).
 */
export async function reissueMagicLink(companyId: number, base: string): Promise<Company> {
  const company = await requireCompany(companyId);
  refuseClosed(company);
  const link = await newMagicLink(companyId, company.partner);
  const previous = company.magic_link_token;
  // The old lookup item exists until TTL removes it (30 days after its expiry); revoke it while it does.
  const revoke = previous && Date.parse(previous.expires_at) + 29 * 86_400_000 > now().getTime();
  try {
    await writeCompanyChange(
      companyId,
      // Checked again on the record the write is conditioned on: a deactivation meanwhile wins.
      (current) => {
        refuseClosed(current);
        return { magic_link_token: link.stored, updated_at: isoNow() };
      },
      {
        with: [
          { Put: { TableName: config().tableName, Item: link.item, ConditionExpression: 'attribute_not_exists(PK)' } },
          ...(revoke ? [{ Update: spendMagicLinkUpdate(previous.hash, 'revoked') }] : []),
        ],
      },
    );
  } catch (error) {
    if (isConditionFailure(error))
      throw new ConflictError(`Company ${companyId} changed while its link was being replaced; run the command again.`);
    throw error;
  }
  return { ...toCompany({ ...company, magic_link_token: link.stored, updated_at: isoNow() }), magic_link: linkUrl(base, link.token) };
}

/** Throws the 409 for a company no link may act on (P271). */
function refuseClosed(company: CompanyRecord): void {
  if (linkOpenFor(company.status)) return;
  const connected = company.status === 'active' || company.status === 'failing';
  throw new ConflictError(
    connected
      ? `Company ${company.id} is ${company.status}; only a company that is not connected gets a magic link.`
      : `Company ${company.id} is ${company.status}; set it invited first to send it a magic link.`,
    connected ? 'company_connected' : 'company_inactive',
  );
}
