/**
 * Per-company entitlements (D15). Stored as a list on the company; the `*_active` flags derive from them.
 * `external_apply` turns on the `external_apply_status` follow-up (P206).
 * Besides the fixed ones, `apply:<slug>` entitles the company to the apply channel with that slug: its jobs
 * then carry that channel's apply webhook URL (`apply_webhooks`, P196).
 */
export const ENTITLEMENTS = ['job_sync', 'candidate_sync', 'email_fallback', 'external_apply'] as const;
export type ApplyEntitlement = `apply:${string}`;
export type Entitlement = (typeof ENTITLEMENTS)[number] | ApplyEntitlement;

/** The prefix of an apply channel entitlement; the rest is a channel slug. */
export const APPLY_PREFIX = 'apply:';
/** A channel slug (the rule of `channel create`). */
export const CHANNEL_SLUG = /^[a-z0-9][a-z0-9_-]{0,63}$/;
export const CHANNEL_SLUG_RULE = 'A channel slug is 1 to 64 lower-case letters, digits, "-" and "_", starting with a letter or digit.';

export function isEntitlement(value: string): value is Entitlement {
  return (ENTITLEMENTS as readonly string[]).includes(value) || applyChannelOf(value) !== undefined;
}

/** The channel slug of an `apply:<slug>` entitlement, else undefined. */
export function applyChannelOf(entitlement: string): string | undefined {
  if (!entitlement.startsWith(APPLY_PREFIX)) return undefined;
  const slug = entitlement.slice(APPLY_PREFIX.length);
  return CHANNEL_SLUG.test(slug) ? slug : undefined;
}

/** The slugs of the apply channels a company is entitled to, sorted. */
export function applyChannelSlugs(entitlements: readonly string[]): string[] {
  return [...new Set(entitlements.map(applyChannelOf).filter((s): s is string => s !== undefined))].sort();
}
