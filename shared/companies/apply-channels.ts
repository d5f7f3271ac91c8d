/**
 * Apply channels (issue 23, P196): a talent channel that a job board posts applications to, in the board's
 * own inbound `format`, signed with a secret. The channel's inbound side is two small items beside the talent
 * channel (by id and by slug, `keys.applyChannel*`) holding the format and the token generation, and the
 * signing secret sealed (D18) in an item of its own, so that no channel or company read ever carries it.
 * Companies are entitled to a channel with `apply:<slug>` (`#companies/entitlements.js`).
 *
 * It sits in `companies` (below the talent channels of `applications`) because the jobs layer builds
 * `apply_webhooks` from it and the entitlement check of `company entitle` needs it.
 */
import { randomBytes } from 'node:crypto';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CHANNEL_SLUG, CHANNEL_SLUG_RULE } from '#companies/entitlements.js';
import { batchGetItems, primaryKeyOf } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { ConflictError, NotFoundError, invalidField, isConditionFailure } from '#platform/errors.js';
import { keys } from '#platform/keys.js';
import { openSecret, sealSecret, type SealedSecret } from '#platform/secrets.js';

/** The inbound formats: `generic` (our application JSON, Standard Webhooks signatures), `indeed` (Indeed Apply). */
export const APPLY_FORMATS = ['generic', 'indeed'] as const;
export type ApplyFormat = (typeof APPLY_FORMATS)[number];

export interface ApplyChannel {
  /** The talent channel's id (applications from it get `talent_channel` = this id). */
  channel_id: number;
  slug: string;
  format: ApplyFormat;
  /** Bumped by `channel revoke-tokens`: every apply URL of the channel is derived from it, so all change. */
  generation: number;
  created_at: string;
  updated_at: string;
}

const secretContext = (channelId: number) => ({ purpose: 'apply-channel-secret', channel: String(channelId) });

export function parseApplyFormat(value: string): ApplyFormat {
  if (!(APPLY_FORMATS as readonly string[]).includes(value)) throw invalidField('format', `Must be one of ${APPLY_FORMATS.join(', ')}.`);
  return value as ApplyFormat;
}

/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes (the convention asks 24 to 64). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/**
 * The signing secret of a new apply channel: generated for `generic` (none may be given), given for
 * `indeed` (the API secret Indeed issued; printable, no spaces). Errors never echo the value.
 */
export function signingSecretFor(format: ApplyFormat, given: string | undefined): { secret: string; generated: boolean } {
  if (format === 'generic') {
    if (given !== undefined) throw invalidField('secret', 'A generic channel gets a generated secret; leave --secret out.');
    return { secret: newSigningSecret(), generated: true };
  }
  if (given === undefined || given === '') throw invalidField('secret', `Required for ${format}: the API secret the board issued.`);
  if (!/^[\x21-\x7e]{8,512}$/.test(given)) throw invalidField('secret', 'Must be 8 to 512 printable characters without spaces.');
  return { secret: given, generated: false };
}

/** Checks what `channel create --format` adds before anything is written (slug rule, format, secret). */
export function checkApplyChannelInput(input: { slug: string; format: string; secret?: string }) {
  if (!CHANNEL_SLUG.test(input.slug)) throw invalidField('slug', CHANNEL_SLUG_RULE);
  const format = parseApplyFormat(input.format);
  return { format, ...signingSecretFor(format, input.secret) };
}

/**
 * The items of a new apply channel, for the talent channel's create transaction: its inbound side by id and by
 * slug, and the sealed secret. The secret is sealed under a context naming the channel, so it opens nowhere else.
 */
export async function applyChannelItems(
  channel: { id: number; slug: string; created_at: string },
  format: ApplyFormat,
  secret: string,
): Promise<Record<string, unknown>[]> {
  const record: ApplyChannel = {
    channel_id: channel.id,
    slug: channel.slug,
    format,
    generation: 1,
    created_at: channel.created_at,
    updated_at: channel.created_at,
  };
  const sealed = await sealSecret(secret, secretContext(channel.id));
  return [
    { ...keys.applyChannel(channel.id), ...record },
    { ...keys.applyChannelSlug(channel.slug), ...record },
    { ...keys.applyChannelSecret(channel.id), format, sealed, created_at: channel.created_at },
  ];
}

function fromItem(item: Record<string, unknown>): ApplyChannel {
  return {
    channel_id: item.channel_id as number,
    slug: item.slug as string,
    format: item.format as ApplyFormat,
    generation: item.generation as number,
    created_at: item.created_at as string,
    updated_at: item.updated_at as string,
  };
}

/** An apply channel by its talent channel id (token checks: read consistently, so a revocation counts at once). */
export async function getApplyChannel(channelId: number): Promise<ApplyChannel | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannel(channelId), ConsistentRead: true }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Apply channels by slug, in one BatchGet (a company's entitled channels); slugs that are none are absent. */
export async function getApplyChannelsBySlug(slugs: readonly string[]): Promise<Map<string, ApplyChannel>> {
  const result = new Map<string, ApplyChannel>();
  if (!slugs.length) return result;
  const found = await batchGetItems(slugs.map(keys.applyChannelSlug));
  for (const slug of slugs) {
    const item = found.get(primaryKeyOf(keys.applyChannelSlug(slug)));
    if (item) result.set(slug, fromItem(item));
  }
  return result;
}

/** The slugs among these that name no apply channel (an `apply:<slug>` entitlement must name one). */
export async function missingApplyChannels(slugs: readonly string[]): Promise<string[]> {
  const found = await getApplyChannelsBySlug(slugs);
  return slugs.filter((slug) => !found.has(slug));
}

/**
 * `hiring-admin channel revoke-tokens`: moves the channel to its next token generation, so every apply URL of
 * the channel changes and the old ones no longer verify. Both copies change in one transaction, conditioned on
 * the generation read, so two revocations never leave them apart.
 */
export async function revokeApplyTokens(slug: string): Promise<ApplyChannel> {
  if (!CHANNEL_SLUG.test(slug)) throw invalidField('slug', CHANNEL_SLUG_RULE); // no key is longer (P272)
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannelSlug(slug), ConsistentRead: true }));
  if (!out.Item) throw new NotFoundError(`No apply channel has the slug "${slug}".`);
  const current = fromItem(out.Item);
  const next: ApplyChannel = { ...current, generation: current.generation + 1, updated_at: isoNow() };
  const update = (key: { PK: string; SK: string }) => ({
    Update: {
      TableName: config().tableName,
      Key: key,
      UpdateExpression: 'SET generation = :next, updated_at = :now',
      ConditionExpression: 'generation = :current',
      ExpressionAttributeValues: { ':next': next.generation, ':now': next.updated_at, ':current': current.generation },
    },
  });
  try {
    await db().send(
      new TransactWriteCommand({ TransactItems: [update(keys.applyChannelSlug(slug)), update(keys.applyChannel(current.channel_id))] }),
    );
  } catch (error) {
    if (isConditionFailure(error)) throw new ConflictError(`The channel "${slug}" changed meanwhile; run the command again.`);
    throw error;
  }
  return next;
}

/** The channel's signing secret, opened (the inbound endpoint, just before it checks a signature). Never log it. */
export async function loadApplyChannelSecret(channelId: number): Promise<string> {
  const out = await db().send(
    new GetCommand({ TableName: config().tableName, Key: keys.applyChannelSecret(channelId), ConsistentRead: true }),
  );
  if (!out.Item) throw new NotFoundError();
  return openSecret(out.Item.sealed as SealedSecret, secretContext(channelId));
}
