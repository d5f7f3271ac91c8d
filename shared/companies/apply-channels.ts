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
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { CHANNEL_SLUG, CHANNEL_SLUG_RULE } from '#companies/entitlements.js';
import { batchGetItems, primaryKeyOf } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { ConflictError, NotFoundError, invalidField, isConditionFailure } from '#platform/errors.js';
import { keys } from '#platform/keys.js';
import { openSecret, sealSecret, type SealedSecret } from '#platform/secrets.js';
import { isHttpUrl } from '#platform/web-formats.js';

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

// ---------------------------------------------------------------------------------------------------
// Dispositions back to the board (D22, P315): where and how an apply channel reports an application's status.

/** What a channel reports with: a `generic` channel's URL (signed with its own secret), an `indeed` channel's OAuth client. */
export type DispositionTarget =
  | { format: 'generic'; channel_id: number; url: string; secret: string }
  | { format: 'indeed'; channel_id: number; client_id: string; client_secret: string };

/** `channel update`'s disposition options; `disposition_url: ''` turns a generic channel's dispositions off. */
export interface DispositionSettings {
  disposition_url?: string;
  indeed_client_id?: string;
  indeed_client_secret?: string;
}

const dispositionSecretContext = (channelId: number) => ({ purpose: 'indeed-client-secret', channel: String(channelId) });
const PRINTABLE = /^[\x21-\x7e]{1,512}$/;

/**
 * `hiring-admin channel update`: sets (or, with an empty URL, removes) where the channel reports dispositions.
 * Checked before anything is written; errors name the option and never echo a secret. The URL is http(s) only
 * (P58); the Indeed client secret is sealed under a context naming the channel (D18).
 */
export async function setChannelDisposition(
  slug: string,
  settings: DispositionSettings,
): Promise<{ slug: string; format: ApplyFormat; disposition_url: string | null; indeed_client_id: string | null }> {
  if (!CHANNEL_SLUG.test(slug)) throw invalidField('slug', CHANNEL_SLUG_RULE);
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.applyChannelSlug(slug), ConsistentRead: true }));
  if (!out.Item) throw new NotFoundError(`No apply channel has the slug "${slug}".`);
  const channel = fromItem(out.Item);
  const key = keys.applyChannelDisposition(channel.channel_id);
  const { disposition_url: url, indeed_client_id: clientId, indeed_client_secret: clientSecret } = settings;
  if (channel.format === 'generic') {
    if (clientId !== undefined || clientSecret !== undefined)
      throw invalidField(
        clientId !== undefined ? 'indeed_client_id' : 'indeed_client_secret',
        'Only an indeed channel has an Indeed client.',
      );
    if (url === undefined) throw invalidField('disposition_url', 'Required for a generic channel (an empty value turns dispositions off).');
    if (url === '') {
      await db().send(new DeleteCommand({ TableName: config().tableName, Key: key }));
      return { slug, format: channel.format, disposition_url: null, indeed_client_id: null };
    }
    if (!isHttpUrl(url)) throw invalidField('disposition_url', 'Must be a valid http or https URL.');
    await db().send(new PutCommand({ TableName: config().tableName, Item: { ...key, format: 'generic', url, updated_at: isoNow() } }));
    return { slug, format: channel.format, disposition_url: url, indeed_client_id: null };
  }
  if (url !== undefined)
    throw invalidField('disposition_url', 'An indeed channel reports through the Disposition Sync API; give its client.');
  if (clientId === undefined || !PRINTABLE.test(clientId))
    throw invalidField('indeed_client_id', 'Required: the OAuth client id from Indeed, 1 to 512 printable characters.');
  if (clientSecret === undefined || !PRINTABLE.test(clientSecret))
    throw invalidField('indeed_client_secret', 'Required: the OAuth client secret from Indeed, 1 to 512 printable characters.');
  const sealed = await sealSecret(clientSecret, dispositionSecretContext(channel.channel_id));
  await db().send(
    new PutCommand({
      TableName: config().tableName,
      Item: { ...key, format: 'indeed', client_id: clientId, sealed, updated_at: isoNow() },
    }),
  );
  return { slug, format: channel.format, disposition_url: null, indeed_client_id: clientId };
}

/** The format a channel reports dispositions in, or undefined when it reports none (a cheap read: nothing is opened). */
export async function dispositionFormat(channelId: number): Promise<ApplyFormat | undefined> {
  const out = await db().send(
    new GetCommand({
      TableName: config().tableName,
      Key: keys.applyChannelDisposition(channelId),
      ProjectionExpression: '#format',
      ExpressionAttributeNames: { '#format': 'format' },
    }),
  );
  return out.Item?.format as ApplyFormat | undefined;
}

/** Where and how the channel reports, with its secrets opened (the sender, just before it sends). Never log it. */
export async function loadDispositionTarget(channelId: number): Promise<DispositionTarget | undefined> {
  const out = await db().send(
    new GetCommand({ TableName: config().tableName, Key: keys.applyChannelDisposition(channelId), ConsistentRead: true }),
  );
  const item = out.Item;
  if (!item) return undefined;
  if (item.format === 'generic') {
    return { format: 'generic', channel_id: channelId, url: item.url as string, secret: await loadApplyChannelSecret(channelId) };
  }
  return {
    format: 'indeed',
    channel_id: channelId,
    client_id: item.client_id as string,
    client_secret: await openSecret(item.sealed as SealedSecret, dispositionSecretContext(channelId)),
  };
}
