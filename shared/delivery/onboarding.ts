/**
 * Onboarding through the magic link (D20, issue 14): what the connect page may do with a token. The token
 * is the only authority, and it acts on its own company only: every step starts from the link's lookup
 * item and reads the company the item names. Connecting goes through `connectCompany` (the connector's
 * credentials check, the sealed credentials, status `active`), spending the link in the same transaction;
 * an ATS that is listed but has no connector yet is recorded as a request (status `requested`) and an event
 * tells the partner.
 */
import { atsBySlug } from '#companies/ats.js';
import { getCompanyRecord, setCompanyStatus } from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { findMagicLink, linkOpenFor, magicLinkUsable, spendMagicLinkUpdate } from '#companies/magic-links.js';
import { getPartner } from '#companies/partners.js';
import { isConditionFailure, ValidationError } from '#platform/errors.js';
import { newEvent, outboxPut } from '#platform/events.js';
import { connectRecord, MagicLinkGoneError, outcomeStatusOf, type OutcomeStatus } from '#delivery/ats-connections.js';
import type { ConnectorDescriptor, CredentialField, CredentialsCheck } from '#delivery/connectors/connector.js';
import { atsIntegrationList, connectorFor, connectors } from '#delivery/connectors/registry.js';

/** An ATS as the page offers it: with its connector's credential fields, or none (a request). */
export interface OfferedAts {
  slug: string;
  name: string;
  /** The connector's credential fields; `undefined` when there is no connector yet (a request). */
  fields: readonly CredentialField[] | undefined;
  /** What the connector's credentials check proves and does not (the page says exactly that). */
  check: CredentialsCheck | undefined;
  /** Whether outcomes are tracked, how, or why not and what the vendor offers instead (P323). */
  outcomes: OutcomeStatus | null;
}

/** The ATSs the page lists: every integration of the registry but the sandbox (a test double, not a customer's ATS). */
export function offeredAtss(registry: readonly ConnectorDescriptor[] = connectors): OfferedAts[] {
  return atsIntegrationList(registry)
    .filter((a) => a.slug !== 'sandbox')
    .map((a) => {
      const connector = a.connector ? connectorFor(a.slug, registry) : undefined;
      const outcomes = connector ? outcomeStatusOf({ ats: a.slug, ats_connection: null }, registry) : null;
      return { slug: a.slug, name: a.name, fields: connector?.credentialFields, check: connector?.check, outcomes };
    });
}

export function offeredAts(slug: string): OfferedAts | undefined {
  return offeredAtss().find((a) => a.slug === slug);
}

export type Invitation = { state: 'open'; hash: string; company: CompanyRecord; partnerName: string } | { state: 'not_valid' };

/**
 * What a token opens. `not_valid` for every token that opens nothing: malformed, never issued, used, revoked,
 * expired, or its company in a state no link acts on (connected, deactivated or deleted meanwhile, P271). One
 * state, so the page cannot tell them apart either (issue 25, P219).
 */
export async function openInvitation(token: string): Promise<Invitation> {
  const notValid = { state: 'not_valid' } as const;
  const link = await findMagicLink(token);
  if (!link || !magicLinkUsable(link)) return notValid;
  const company = await getCompanyRecord(link.company);
  if (!company || !stillOpen(company, link.hash)) return notValid;
  const partner = await getPartner(company.partner).catch(() => undefined);
  return { state: 'open', hash: link.hash, company, partnerName: partner?.name ?? '' };
}

/** Whether the company still takes its link `hash`: in a state a link acts on, and that link still its own. */
const stillOpen = (company: CompanyRecord, hash: string) => linkOpenFor(company.status) && company.magic_link_token?.hash === hash;

/** Whether the invitation's company, read again, still takes its link (one read: a form sent twice waits on it, P271). */
export async function invitationStillOpen(invitation: Extract<Invitation, { state: 'open' }>): Promise<boolean> {
  const company = await getCompanyRecord(invitation.company.id);
  return !!company && stillOpen(company, invitation.hash);
}

/** A link spent by a connection or a request, with its company still as that left it (P271). */
export interface SettledInvitation {
  state: 'connected' | 'requested';
  hash: string;
  company: CompanyRecord;
  partnerName: string;
}

/**
 * What a used link's submission left: `connected` while its company is connected (`active` or `failing`, with a
 * connection), `requested` while it is `requested`; undefined for any other token, or when the company moved on
 * since (an operator changed it). Only for a form sent again (its nonce claimed already): the page shows the
 * outcome instead of "no longer valid" to whoever holds that very form (P271).
 */
export async function settledInvitation(token: string): Promise<SettledInvitation | undefined> {
  const link = await findMagicLink(token);
  if (link?.state !== 'used') return undefined;
  const company = await getCompanyRecord(link.company);
  if (!company) return undefined;
  const connected = (company.status === 'active' || company.status === 'failing') && !!company.ats_connection;
  if (!connected && company.status !== 'requested') return undefined;
  const partner = await getPartner(company.partner).catch(() => undefined);
  return { state: connected ? 'connected' : 'requested', hash: link.hash, company, partnerName: partner?.name ?? '' };
}

/** Connects the invitation's company with the credentials entered (throws the connector's D2 error, or MagicLinkGoneError). */
export async function connectThroughLink(invitation: Extract<Invitation, { state: 'open' }>, ats: string, input: Record<string, string>) {
  // P351: what the new connection does about outcomes (an optional credential given or not), for the page after it.
  return outcomeStatusOf(await connectRecord(invitation.company.id, ats, input, { magicLinkHash: invitation.hash }));
}

export interface AtsRequest {
  contact_name: string;
  contact_email: string;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

/** Checks the contact of an ATS request; errors name the field. */
export function parseAtsRequest(input: Record<string, string>): AtsRequest {
  const errors: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  const name = (input.contact_name ?? '').trim();
  const email = (input.contact_email ?? '').trim();
  if (!name) errors.contact_name = ['Enter the name of the person we should contact.'];
  else if (name.length > 200) errors.contact_name = ['Use at most 200 characters.'];
  if (!email) errors.contact_email = ['Enter the e-mail address of the person we should contact.'];
  else if (!EMAIL.test(email) || email.length > 254) errors.contact_email = ['Enter an e-mail address like name@example.com.'];
  if (Object.keys(errors).length) throw new ValidationError(errors);
  return { contact_name: name, contact_email: email };
}

/**
 * Records a request for an ATS without a connector: status `requested` with the ATS and the contact, the
 * link spent and the `company.ats_requested` event (ids and slugs only) put in the outbox (P115), all in one
 * transaction.
 */
export async function requestAtsThroughLink(invitation: Extract<Invitation, { state: 'open' }>, ats: string, request: AtsRequest) {
  if (!atsBySlug(ats) || atsBySlug(ats)!.connector) throw new ValidationError({ ats: ['Choose an ATS from the list.'] });
  const companyId = invitation.company.id;
  try {
    await setCompanyStatus(companyId, 'requested', {
      // Refused when the company left the states a link acts on meanwhile (deactivated, P271), or got a new link.
      check: (current) => {
        if (!stillOpen(current, invitation.hash)) throw new MagicLinkGoneError();
      },
      fields: { ats, contact_name: request.contact_name, contact_email: request.contact_email, magic_link_token: null },
      transactItems: [
        { Update: spendMagicLinkUpdate(invitation.hash, 'used') },
        outboxPut(newEvent('company.ats_requested', companyId, { ats, status: 'requested' })),
      ],
    });
  } catch (error) {
    if (isConditionFailure(error)) throw new MagicLinkGoneError();
    throw error;
  }
}
