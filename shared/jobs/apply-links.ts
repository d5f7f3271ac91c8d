/**
 * `apply_webhooks` (D15, issue 23, P197): per job, the URL each apply channel the company is entitled to posts
 * applications to, `{base}/apply/{channel}/{token}`. The token is derived, not stored: it carries the company,
 * job and channel ids and a MAC over them and the channel's token generation, under a key derived from the
 * cursor secret. So listing jobs writes nothing and reads only the entitled channels (one BatchGet, cached per
 * instance like the company record), and `channel revoke-tokens` (a new generation) changes every URL of the
 * channel at once, the old ones failing to verify.
 *
 * Token: base64url of `version (1) | company id | job id | channel id` (unsigned LEB128 varints) and the first
 * 16 bytes of HMAC-SHA256(key, "apply-token" 0x00 | those bytes | generation varint): 128 bits to guess.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { getApplyChannel, getApplyChannelsBySlug, type ApplyChannel } from '#companies/apply-channels.js';
import { getCompanyRecord } from '#companies/company-store.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { applyChannelSlugs } from '#companies/entitlements.js';
import { derivedSecretKey } from '#platform/derived-keys.js';

const TOKEN_VERSION = 1;
const MAC_BYTES = 16;
/** Three ids of at most 8 varint bytes each, the version and the MAC, in base64url. */
const MAX_TOKEN_CHARS = 60;
const DOMAIN = Buffer.from('apply-token\u0000', 'utf8');

/** The MAC key (HKDF of CURSOR_SECRET under its own purpose, so it is independent of the cursor key). */
export function applyTokenKey(): Buffer {
  return derivedSecretKey('his-apply-token-v1');
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  do {
    const low = rest % 128;
    rest = Math.floor(rest / 128);
    bytes.push(rest > 0 ? low + 128 : low);
  } while (rest > 0);
  return bytes;
}

function readVarint(bytes: Buffer, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  let scale = 1;
  for (let i = offset; i < bytes.length && i < offset + 8; i++) {
    value += (bytes[i] % 128) * scale;
    if (bytes[i] < 128) return Number.isSafeInteger(value) ? { value, next: i + 1 } : undefined;
    scale *= 128;
  }
  return undefined;
}

/** The apply token of one job and channel at the channel's current generation. */
export function applyToken(
  key: Buffer,
  companyId: number,
  jobId: number,
  channel: Pick<ApplyChannel, 'channel_id' | 'generation'>,
): string {
  const body = Buffer.from([TOKEN_VERSION, ...varint(companyId), ...varint(jobId), ...varint(channel.channel_id)]);
  const mac = createHmac('sha256', key)
    .update(DOMAIN)
    .update(body)
    .update(Buffer.from(varint(channel.generation)))
    .digest()
    .subarray(0, MAC_BYTES);
  return Buffer.concat([body, mac]).toString('base64url');
}

/** The ids a token names, unchecked (anyone can write a token that parses; only `checkApplyToken` says it is ours). */
export function parseApplyToken(token: unknown): { companyId: number; jobId: number; channelId: number } | undefined {
  if (typeof token !== 'string' || token.length > MAX_TOKEN_CHARS || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes[0] !== TOKEN_VERSION) return undefined;
  const company = readVarint(bytes, 1);
  const job = company && readVarint(bytes, company.next);
  const channel = job && readVarint(bytes, job.next);
  if (!channel || bytes.length - channel.next !== MAC_BYTES) return undefined;
  if (company.value < 1 || job.value < 1 || channel.value < 1) return undefined;
  return { companyId: company.value, jobId: job.value, channelId: channel.value };
}

/**
 * Whether `token` is the channel's token at its current generation: the ids it names, else undefined. The
 * whole token is compared with the expected one in constant time (so a non-canonical encoding fails too).
 */
export function checkApplyToken(
  token: unknown,
  channel: Pick<ApplyChannel, 'channel_id' | 'generation'>,
  key: Buffer = applyTokenKey(),
): { companyId: number; jobId: number } | undefined {
  const named = parseApplyToken(token);
  if (!named || named.channelId !== channel.channel_id) return undefined;
  const expected = Buffer.from(applyToken(key, named.companyId, named.jobId, channel));
  const given = Buffer.from(token as string);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { companyId: named.companyId, jobId: named.jobId };
}

export interface VerifiedApplyToken {
  companyId: number;
  jobId: number;
  channel: ApplyChannel;
}

/**
 * The inbound endpoint's check (issue 23 item 2): the company, job and apply channel a token names, if the token
 * is the channel's current one and the company is still entitled to the channel; else undefined. It does not
 * say whether the job exists or is active, nor check the request's signature: the endpoint does both.
 */
export async function verifyApplyToken(token: unknown): Promise<VerifiedApplyToken | undefined> {
  const named = parseApplyToken(token);
  if (!named) return undefined;
  const channel = await getApplyChannel(named.channelId);
  if (!channel) return undefined;
  const checked = checkApplyToken(token, channel);
  if (!checked) return undefined;
  const company = await getCompanyRecord(checked.companyId);
  if (!company || !applyChannelSlugs(company.entitlements).includes(channel.slug)) return undefined;
  return { ...checked, channel };
}

// ---------------------------------------------------------------------------------------------------
// apply_webhooks of a company's jobs

/** Builds a job's `apply_webhooks`. */
export interface ApplyLinks {
  forJob(jobId: number): Record<string, string>;
}

export const NO_APPLY_LINKS: ApplyLinks = { forJob: () => ({}) };

/** Like the company record (D3, `COMPANY_CACHE_MS`): a new generation shows in listings within this time. */
const CHANNEL_CACHE_MS = Number(process.env.COMPANY_CACHE_MS ?? 10_000);
const channelCache = new Map<string, { channel: ApplyChannel | undefined; at: number }>();

async function cachedApplyChannels(slugs: string[]): Promise<ApplyChannel[]> {
  const now = Date.now();
  const stale = slugs.filter((slug) => {
    const hit = channelCache.get(slug);
    return !hit || now - hit.at >= CHANNEL_CACHE_MS;
  });
  if (stale.length) {
    const found = await getApplyChannelsBySlug(stale);
    for (const slug of stale) channelCache.set(slug, { channel: found.get(slug), at: now });
  }
  return slugs.map((slug) => channelCache.get(slug)?.channel).filter((c): c is ApplyChannel => c !== undefined);
}

/** Tests: the next listing reads the channels again. */
export function forgetCachedApplyChannels(): void {
  channelCache.clear();
}

/**
 * The `apply_webhooks` builder for a company's jobs on this request: the entitled channels in slug order, each
 * `{publicBase}/apply/{slug}/{token}`; `{}` for every job when the company is entitled to none.
 */
export async function applyLinksFor(company: Pick<CompanyRecord, 'id' | 'entitlements'>, publicBase: string): Promise<ApplyLinks> {
  const slugs = applyChannelSlugs(company.entitlements);
  if (!slugs.length) return NO_APPLY_LINKS;
  const channels = await cachedApplyChannels(slugs);
  if (!channels.length) return NO_APPLY_LINKS;
  const key = applyTokenKey();
  const base = publicBase.replace(/\/+$/, '');
  return {
    // Keys are slugs of the channel rule (never `__proto__`); fromEntries defines own properties either way.
    forJob: (jobId) =>
      Object.fromEntries(channels.map((c) => [c.slug, `${base}/apply/${c.slug}/${applyToken(key, company.id, jobId, c)}`])),
  };
}
