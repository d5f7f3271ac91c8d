/**
 * Connecting a company to its ATS (issue 9, D15/D18): `connectCompany` checks the credentials with the
 * connector's cheapest proving call and only then stores them (sealed) together with the company's new
 * `ats`, its connection and status `active`, in one transaction; on any failure it throws a D2 error
 * naming what failed and stores nothing. `disconnectCompany` removes them.
 */
import { atsBySlug, atsIntegrations } from '#companies/ats.js';
import { requireCompany, writeCompanyChange } from '#companies/company-store.js';
import { atsConnected, toCompany, type Company, type CompanyRecord } from '#companies/company-schema.js';
import { config } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { ApiError, CompanyInactiveError, invalidField, isConditionFailure } from '#platform/errors.js';
import { linkOpenFor, spendMagicLinkUpdate } from '#companies/magic-links.js';
import { ConnectorError, trackingOf, type AtsCredentials, type ConnectorDescriptor } from '#delivery/connectors/connector.js';
import { connectorFor, loadConnector } from '#delivery/connectors/registry.js';
import type { CredentialsCheck } from '#delivery/connectors/connector.js';
import { credentialsItem, deleteCredentialsInput, parseCredentials } from '#delivery/credentials.js';
import { ensureAtsWebhook } from '#delivery/ats-webhooks.js';

/** A failed credentials check as a D2 error: which credential (or the ATS) failed, and why. */
export function connectionError(error: ConnectorError, fields: string[]): ApiError {
  if (error.kind === 'credentials_rejected') {
    const named = error.field ? [error.field] : fields;
    return new ApiError(
      400,
      'credentials_rejected',
      `The ATS rejected the credentials: ${error.message}`,
      Object.fromEntries(named.map((f) => [f, [error.message]])),
    );
  }
  if (error.kind === 'transient' || error.kind === 'rate_limited')
    return new ApiError(400, 'ats_unreachable', `The ATS could not be reached to check the credentials: ${error.message}`, {
      ats: [error.message],
    });
  return new ApiError(400, 'ats_invalid_response', `The ATS answered the credentials check with something unexpected: ${error.message}`, {
    ats: [error.message],
  });
}

/** What a passed credentials check proved and did not (the connector's declaration), for the CLI and the page. */
export function credentialsCheckOf(ats: string): { call: string; proved: string; not_proved: string | null } | undefined {
  const check: CredentialsCheck | undefined = connectorFor(ats)?.check;
  return check && { call: check.call, proved: check.proves, not_proved: check.doesNotProve };
}

/**
 * `hiring-admin company connect C --ats …`: checks and stores the company's ATS credentials (the fields
 * each connector declares, shared/delivery/connectors/registry.ts). Returns the Company object with `ats`,
 * `ats_name` and `status: active`.
 */
export async function connectCompany(...args: Parameters<typeof connectRecord>): Promise<Company> {
  return toCompany(await connectRecord(...args));
}

/**
 * P351: the optional credential fields without a default value (Lever's webhook signature tokens, Recruitee's ATS API
 * token) that were given, by name: kept on the connection so that whether outcomes are read is known without
 * opening the sealed credentials.
 */
export function optionalCredentialsGiven(connector: ConnectorDescriptor, credentials: AtsCredentials): string[] {
  return connector.credentialFields.filter((f) => f.default === '' && Boolean(credentials[f.name])).map((f) => f.name);
}

/** `connectCompany`, returning the stored record (the connect page says what its connection does about outcomes). */
export async function connectRecord(
  companyId: number,
  ats: string,
  input: Record<string, unknown>,
  options: ConnectOptions = {},
): Promise<CompanyRecord> {
  const connector = connectorFor(ats);
  if (!connector || !atsBySlug(ats))
    throw invalidField(
      'ats',
      `Must be one of ${atsIntegrations
        .filter((a) => a.connector)
        .map((a) => a.slug)
        .join(', ')}.`,
    );
  const credentials = parseCredentials(connector, input);
  const company = await requireCompany(companyId);
  if (company.status === 'deleted') throw new CompanyInactiveError('This company has been deleted; it cannot be connected.');
  // Through a magic link: only while the company is in a state a link acts on and the link is still its own,
  // checked again on the record the write is conditioned on (an operator's deactivation wins, P271).
  const linkStillOpen = (c: CompanyRecord) =>
    !options.magicLinkHash || (linkOpenFor(c.status) && c.magic_link_token?.hash === options.magicLinkHash);
  if (!linkStillOpen(company)) throw new MagicLinkGoneError();
  try {
    await (await loadConnector(ats))!.validateCredentials(credentials, { ...company, ats });
  } catch (error) {
    if (error instanceof ConnectorError)
      throw connectionError(
        error,
        connector.credentialFields.map((f) => f.name),
      );
    throw error;
  }
  const now = isoNow();
  const given = optionalCredentialsGiven(connector, credentials);
  const fields = {
    ats,
    ats_connection: { ats, connected_at: now, ...(given.length ? { optional_credentials: given } : {}) },
    status: 'active' as const,
    job_import_failures: 0,
    // A connected company has no active magic link (D20), whoever connected it.
    magic_link_token: null,
    updated_at: now,
  };
  // The credentials change in the same transaction as the company (its index attributes and counters move with it);
  // through the connect page the link is spent there too, and only if it is still active.
  const credentialsWrite = atsBySlug(ats)!.credentials
    ? { Put: { TableName: config().tableName, Item: await credentialsItem(companyId, ats, credentials, now) } }
    : { Delete: deleteCredentialsInput(companyId) };
  const spend = options.magicLinkHash ? [{ Update: spendMagicLinkUpdate(options.magicLinkHash, 'used') }] : [];
  const change = (c: CompanyRecord) => {
    if (!linkStillOpen(c)) throw new MagicLinkGoneError();
    return fields;
  };
  const next = await writeCompanyChange(companyId, change, { with: [credentialsWrite, ...spend] }).catch((error: unknown) => {
    if (options.magicLinkHash && isConditionFailure(error)) throw new MagicLinkGoneError();
    throw error;
  });
  // P310: an ATS whose outcomes come by webhooks gets its inbound URL (and our secret, where the vendor takes one).
  await ensureAtsWebhook(companyId, ats);
  return next;
}

export interface ConnectOptions {
  /** The magic link (by its token's hash) the connection is made through; it is used up with it. */
  magicLinkHash?: string;
}

/** A magic link that was used, revoked or expired meanwhile (410). */
export class MagicLinkGoneError extends ApiError {
  constructor() {
    super(410, 'link_gone', 'This link is no longer valid.');
  }
}

/**
 * P322: the ATS rejected the credentials for reading outcomes (401/403, or a missing read scope or permission):
 * the company's readings pause until its credentials change. Recorded on its connection (`outcomes_paused`), only
 * while the connection is the one the readings used (a reconnection meanwhile wins); the company's status and its
 * submissions are left alone (the credentials may still submit). Returns whether it was recorded.
 */
export async function pauseOutcomeReadings(company: CompanyRecord, error: ConnectorError): Promise<boolean> {
  const connectedAt = company.ats_connection?.connected_at;
  if (!company.ats_connection || !connectedAt) return false;
  let paused = false;
  await writeCompanyChange(company.id, (c) => {
    if (!c.ats_connection || c.ats_connection.connected_at !== connectedAt || c.ats_connection.outcomes_paused) return undefined;
    paused = true;
    const pause = { at: isoNow(), reason: error.message.slice(0, 300), credential: error.field ?? null };
    return { ats_connection: { ...c.ats_connection, outcomes_paused: pause } };
  });
  return paused;
}

/** What a company's connection does about outcomes (D21, P322, P323), for `company connect`/`status` and the page. */
export interface OutcomeStatus {
  /** `reading`: read by the service; `webhook`: told by the ATS; `none`: not tracked; `paused`: reading paused (P322). */
  tracked: 'reading' | 'webhook' | 'none' | 'paused';
  /** How (the documented call or the webhooks), or why not (the reason; for a pause, the ATS's answer). */
  detail: string;
  /** For a pause: since when, and the credential to change (reconnect with new credentials to resume). */
  paused_at?: string;
  credential?: string | null;
}

/** The company's outcome tracking as its connector declares it, and a pause of its readings (P322). */
export function outcomeStatusOf(
  company: Pick<CompanyRecord, 'ats' | 'ats_connection'>,
  registry?: Parameters<typeof connectorFor>[1],
): OutcomeStatus | null {
  const declared = connectorFor(company.ats, registry)?.outcomes;
  if (!declared) return null;
  const connection = company.ats_connection?.ats === company.ats ? company.ats_connection : undefined;
  // P351: a reading that needs an optional credential the company did not give is `none`, with the reason.
  const outcomes = trackingOf(declared, connection?.optional_credentials);
  const paused = connection?.outcomes_paused;
  if (outcomes.by === 'reading' && paused)
    return {
      tracked: 'paused',
      detail: `Outcome readings are paused: ${paused.reason} Reconnect with credentials that may read applications to resume.`,
      paused_at: paused.at,
      credential: paused.credential,
    };
  if (outcomes.by === 'reading') return { tracked: 'reading', detail: outcomes.call };
  if (outcomes.by === 'webhook') return { tracked: 'webhook', detail: outcomes.about };
  return { tracked: 'none', detail: outcomes.reason };
}

/**
 * `hiring-admin company status C`: the company's connection as the operator needs it: its status, the ATS,
 * whether it is connected and since when, and what happens about outcomes (P322, P323). No credentials.
 */
export async function connectionStatus(companyId: number) {
  const company = await requireCompany(companyId);
  return {
    id: company.id,
    status: company.status,
    ats: company.ats,
    ats_name: atsBySlug(company.ats)?.name ?? null,
    connected: atsConnected(company),
    connected_at: company.ats_connection?.ats === company.ats ? company.ats_connection.connected_at : null,
    outcomes: outcomeStatusOf(company),
  };
}

/** `hiring-admin company disconnect C`: deletes the stored credentials; the syncs stop being active (D15). */
export async function disconnectCompany(companyId: number): Promise<Company> {
  await requireCompany(companyId);
  const next = await writeCompanyChange(
    companyId,
    { ats_connection: null, updated_at: isoNow() },
    { with: [{ Delete: deleteCredentialsInput(companyId) }] },
  );
  return toCompany(next);
}
