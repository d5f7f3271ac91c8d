/** Talent channels: where applications come from (a job board's slug), resolved from `channel` (D9). */
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { batchGetByKey } from '#platform/batch.js';
import { config, db } from '#platform/clients.js';
import { isoNow } from '#platform/clock.js';
import { CHANNEL_SLUG, CHANNEL_SLUG_RULE } from '#companies/entitlements.js';
import { ConflictError, invalidField, isConditionFailure } from '#platform/errors.js';
import { nextId } from '#platform/ids.js';
import { keys } from '#platform/keys.js';
import { isHttpUrl } from '#platform/web-formats.js';

export interface TalentChannel {
  id: number;
  slug: string;
  name: string;
  logo: string | null;
  created_at: string;
}

function fromItem(item: Record<string, unknown>): TalentChannel {
  const { PK, SK, ...channel } = item;
  return channel as unknown as TalentChannel;
}

export async function createChannel(
  input: { slug: string; name: string; logo?: string | null },
  /** Items put in the same transaction, new keys only (an apply channel's inbound side and sealed secret, P196). */
  alsoPut: (channel: TalentChannel) => Promise<Record<string, unknown>[]> = () => Promise.resolve([]),
): Promise<TalentChannel> {
  // One rule for every slug that comes in (P272): a key of DynamoDB's holds at most 2 KB, and apply channels take 64.
  if (!CHANNEL_SLUG.test(input.slug)) throw invalidField('slug', CHANNEL_SLUG_RULE);
  if (!input.name.trim()) throw invalidField('name', 'This field is required.');
  // Handed out as `talent_channel_logo`: http(s) only, like every URL we store (P58).
  if (input.logo != null && !isHttpUrl(input.logo)) throw invalidField('logo', 'Must be a valid http or https URL.');
  const channel: TalentChannel = {
    id: await nextId('channel'),
    slug: input.slug,
    name: input.name,
    logo: input.logo ?? null,
    created_at: isoNow(),
  };
  const also = (await alsoPut(channel)).map((Item) => ({
    Put: { TableName: config().tableName, Item, ConditionExpression: 'attribute_not_exists(PK)' },
  }));
  try {
    await db().send(
      new TransactWriteCommand({
        TransactItems: [
          ...also,
          {
            Put: {
              TableName: config().tableName,
              Item: { ...keys.channelSlug(channel.slug), ...channel },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
          {
            Put: {
              TableName: config().tableName,
              Item: { ...keys.channel(channel.id), ...channel },
              ConditionExpression: 'attribute_not_exists(PK)',
            },
          },
        ],
      }),
    );
  } catch (error) {
    // Taken only when a condition failed; any other cancellation (a conflict, throttling) is not a taken slug (P272).
    if (isConditionFailure(error)) throw new ConflictError(`A channel with slug "${input.slug}" exists already.`);
    throw error;
  }
  return channel;
}

export async function getChannelBySlug(slug: string): Promise<TalentChannel | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.channelSlug(slug) }));
  return out.Item ? fromItem(out.Item) : undefined;
}

export async function getChannel(id: number): Promise<TalentChannel | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.channel(id) }));
  return out.Item ? fromItem(out.Item) : undefined;
}

/** Channels by id, in one BatchGet per 100 ids. */
export async function getChannels(ids: number[]): Promise<Map<number, TalentChannel>> {
  return batchGetByKey(ids, keys.channel, (item) => fromItem(item));
}
