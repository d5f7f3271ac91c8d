/**
 * Magic links (D20, issue 14): a company's one-use, expiring invitation to connect its ATS itself.
 *
 * - The token is 32 random bytes (base64url, 43 characters). It is looked up by its SHA-256 (the
 *   `MAGICLINK#<hash>` item, which says which company, until when, and whether it is still `active`).
 * - For showing in the Company object's `magic_link`, the company record keeps the token sealed
 *   (`#platform/secrets.js`, envelope encryption like the ATS credentials) with its hash and expiry, and
 *   nothing in plain text. Issuing a new link revokes the old one; using it (connect, request) spends it.
 * - `magic_link` is `{base}/connect/{token}` while the link is active and unexpired and the company is in a
 *   state a link may act on (`invited`, `requested`), else `null` (P271).
 */
import { createHash, randomBytes } from 'node:crypto';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { invalidField } from '#platform/errors.js';
import { expiringAt, keys } from '#platform/keys.js';
import { openSecret, sealSecret, SecretUnavailableError, type SealedSecret } from '#platform/secrets.js';

/** What the company record keeps of its active link: never the token itself. */
export interface StoredMagicLink {
  hash: string;
  sealed: SealedSecret;
  /** ISO date-time after which the link no longer works. */
  expires_at: string;
}

export type MagicLinkState = 'active' | 'used' | 'revoked';

/** The lookup item, found by the token's hash. */
export interface MagicLinkItem {
  company: number;
  partner: number;
  state: MagicLinkState;
  link_expires_at: string;
  created_at: string;
}

const TOKEN_BYTES = 32;
/** base64url of 32 bytes; anything else is malformed and never reaches the table. */
export const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** Lookup items stay this long after the link expired (so an expired link answers 410, not 404), then TTL removes them. */
const KEEP_AFTER_EXPIRY_SECONDS = 30 * 86_400;

/**
 * The company states a magic link may act on (D17, D20, P271): `invited`, and `requested` (a company that asked
 * for an ATS without a connector may later connect a supported one, through a new link from `invite-link`).
 * A connected company (`active`, `failing`) has no use for one, and a `deactivated` or `deleted` one is out of
 * service by the operator's decision, which a link must never undo.
 */
export const LINK_OPEN_STATUSES: readonly string[] = ['invited', 'requested'];

export const linkOpenFor = (status: string): boolean => LINK_OPEN_STATUSES.includes(status);

/** `MAGIC_LINK_TTL_DAYS` (default 14): how long a link works. */
export function magicLinkTtlDays(): number {
  const configured = process.env.MAGIC_LINK_TTL_DAYS;
  if (configured === undefined || configured === '') return 14;
  const days = Number(configured);
  if (!Number.isFinite(days) || days <= 0 || days > 365)
    throw invalidField('MAGIC_LINK_TTL_DAYS', 'Must be a number of days above 0, at most 365.');
  return days;
}

export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const sealContext = (companyId: number) => ({ purpose: 'magic-link', company: String(companyId) });

/** A fresh link for the company: the token (for the caller to show once), what the record keeps, and the lookup item. */
export async function newMagicLink(companyId: number, partnerId: number) {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  const hash = hashToken(token);
  const issued = now();
  const expires = new Date(issued.getTime() + magicLinkTtlDays() * 86_400_000);
  const stored: StoredMagicLink = { hash, sealed: await sealSecret(token, sealContext(companyId)), expires_at: expires.toISOString() };
  const item: MagicLinkItem & Record<string, unknown> = {
    ...keys.magicLink(hash),
    company: companyId,
    partner: partnerId,
    state: 'active',
    link_expires_at: stored.expires_at,
    created_at: issued.toISOString(),
    ...expiringAt(Math.ceil(expires.getTime() / 1000) + KEEP_AFTER_EXPIRY_SECONDS),
  };
  return { token, stored, item };
}

/** Whether a stored link still works at this moment. */
export function linkActive(stored: StoredMagicLink | null | undefined): stored is StoredMagicLink {
  return !!stored && Date.parse(stored.expires_at) > now().getTime();
}

/**
 * The `magic_link` URL of a company's active link, or `null`: none, expired, the company in a state no link acts
 * on (P271), or not openable. A used or revoked link is never on the record: every write that spends or revokes
 * one clears `magic_link_token` in the same transaction, so no lookup item is read here.
 */
export async function magicLinkUrl(
  company: { id: number; status: string; magic_link_token?: StoredMagicLink | null },
  base: string | undefined,
): Promise<string | null> {
  const stored = company.magic_link_token;
  if (!linkActive(stored) || !linkOpenFor(company.status) || !base) return null;
  try {
    const token = await openSecret(stored.sealed, sealContext(company.id));
    return `${base.replace(/\/+$/, '')}/connect/${token}`;
  } catch (error) {
    if (error instanceof SecretUnavailableError) return null;
    throw error;
  }
}

/** The lookup item of a token, or undefined for a malformed or unknown one. */
export async function findMagicLink(token: string): Promise<(MagicLinkItem & { hash: string }) | undefined> {
  if (!TOKEN_PATTERN.test(token)) return undefined;
  return findMagicLinkByHash(hashToken(token));
}

/** The lookup item of a token's hash (read consistently: it decides), or undefined. */
export async function findMagicLinkByHash(hash: string): Promise<(MagicLinkItem & { hash: string }) | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.magicLink(hash), ConsistentRead: true }));
  if (!out.Item) return undefined;
  return { ...(out.Item as MagicLinkItem), hash };
}

/** Whether a found link can still be used: `active` and not expired; else `gone` (410). */
export function magicLinkUsable(link: MagicLinkItem): boolean {
  return link.state === 'active' && Date.parse(link.link_expires_at) > now().getTime();
}

/** The transaction item that spends (or revokes) an active link; its condition fails if it is not active any more. */
export function spendMagicLinkUpdate(hash: string, state: Exclude<MagicLinkState, 'active'>) {
  return {
    TableName: config().tableName,
    Key: keys.magicLink(hash),
    UpdateExpression: 'SET #state = :state, spent_at = :now',
    ConditionExpression: '#state = :active',
    ExpressionAttributeNames: { '#state': 'state' },
    ExpressionAttributeValues: { ':state': state, ':active': 'active', ':now': now().toISOString() },
  };
}

/**
 * The transaction items that revoke the link `hash` if its lookup item is still `active` (none when it is used,
 * revoked, or already removed by TTL). Its condition fails when the link is spent meanwhile: read again then.
 */
export async function revokeIfActive(hash: string): Promise<Record<string, unknown>[]> {
  return (await findMagicLinkByHash(hash))?.state === 'active' ? [{ Update: spendMagicLinkUpdate(hash, 'revoked') }] : [];
}
