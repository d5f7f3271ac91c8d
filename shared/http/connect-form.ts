/**
 * The connect page's form (D20, P146): attempt limits per client address and per link (fixed one-hour windows
 * in the table, TTL), the form token (CSRF: `issued.nonce.HMAC`, bound to the link, two hours, used once), what
 * became of a sent form (its use item, P271), and reading the form body (urlencoded only, at most 16 KB).
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { config, db } from '#platform/clients.js';
import { now } from '#platform/clock.js';
import { isConditionFailure } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { expiringAt, keys } from '#platform/keys.js';
import { derivedSecretKey } from '#platform/derived-keys.js';

const WINDOW_SECONDS = 3600;
const FORM_TOKEN_SECONDS = 2 * 3600;
/** The largest form body read (D2: 413 above). */
export const MAX_FORM_BYTES = 16 * 1024;

const limit = (name: string, fallback: number) => {
  const value = Number(process.env[name]);
  return Number.isInteger(value) && value > 0 ? value : fallback;
};
/** `CONNECT_ATTEMPTS_PER_ADDRESS` (default 60): connect page requests per client address and hour. */
export const attemptsPerAddress = () => limit('CONNECT_ATTEMPTS_PER_ADDRESS', 60);
/** `CONNECT_ATTEMPTS_PER_LINK` (default 10): form submissions per magic link and hour. */
export const attemptsPerLink = () => limit('CONNECT_ATTEMPTS_PER_LINK', 10);

// ---------------------------------------------------------------------------------------------------
// Attempt limits

/** Counts one attempt in the current window; returns the seconds until the window ends when over the limit. */
export async function overLimit(scope: string, max: number): Promise<number | undefined> {
  const nowSeconds = Math.floor(now().getTime() / 1000);
  const window = Math.floor(nowSeconds / WINDOW_SECONDS);
  const windowEnd = (window + 1) * WINDOW_SECONDS;
  const ttl = expiringAt(windowEnd + 60);
  const out = await db().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: keys.attempts(scope, window),
      UpdateExpression: 'ADD attempts :one SET expires_at = :exp',
      ExpressionAttributeValues: { ':one': 1, ':exp': ttl.expires_at },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(out.Attributes?.attempts ?? 1) > max ? windowEnd - nowSeconds : undefined;
}

/** The client address, hashed: the counter's key never holds the address itself. */
export function addressScope(event: APIGatewayProxyEvent): string {
  const address = event.requestContext?.identity?.sourceIp ?? 'unknown';
  return `address#${createHash('sha256').update(address).digest('base64url')}`;
}

// ---------------------------------------------------------------------------------------------------
// Form tokens (CSRF): `issued.nonce.mac`, the MAC over the link's hash, the time and the nonce.

const key = () => derivedSecretKey('his-connect-form-v1');

const mac = (linkHash: string, issued: string, nonce: string) =>
  createHmac('sha256', key()).update(`${linkHash}.${issued}.${nonce}`).digest('base64url');

export function mintFormToken(linkHash: string): string {
  const issued = String(Math.floor(now().getTime() / 1000));
  const nonce = randomBytes(16).toString('base64url');
  return `${issued}.${nonce}.${mac(linkHash, issued, nonce)}`;
}

/** The form token's nonce and expiry when it is genuine, for this link, and fresh; else undefined. */
export function verifyFormToken(linkHash: string, value: string | undefined): { nonce: string; expires: number } | undefined {
  const parts = /^(\d{1,12})\.([A-Za-z0-9_-]{22})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '');
  if (!parts) return undefined;
  const [, issued, nonce, given] = parts;
  const expected = Buffer.from(mac(linkHash, issued, nonce));
  if (!timingSafeEqual(expected, Buffer.from(given))) return undefined;
  const expires = Number(issued) + FORM_TOKEN_SECONDS;
  const nowSeconds = now().getTime() / 1000;
  if (expires < nowSeconds || Number(issued) > nowSeconds + 60) return undefined;
  return { nonce, expires };
}

/** Marks a form as sent; false when it was sent before (a replay). */
export async function claimForm(nonce: string, expires: number): Promise<boolean> {
  try {
    await db().send(
      new PutCommand({
        TableName: config().tableName,
        Item: { ...keys.formUse(nonce), ...expiringAt(expires + 60) },
        ConditionExpression: 'attribute_not_exists(PK)',
      }),
    );
    return true;
  } catch (error) {
    if ((error as Error).name === 'ConditionalCheckFailedException') return false;
    throw error;
  }
}

/** Notes on a sent form that its submission was refused (bad input, rejected credentials): a resend then shows the form again. */
export async function markFormRefused(nonce: string): Promise<void> {
  await db()
    .send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: keys.formUse(nonce),
        UpdateExpression: 'SET refused = :yes',
        ConditionExpression: 'attribute_exists(PK)',
        ExpressionAttributeValues: { ':yes': true },
      }),
    )
    .catch((error: unknown) => {
      // Without the note a resend says "still being checked" instead of showing the form: not worth a 500.
      if (!isConditionFailure(error)) logger.warn('form refusal not noted', { error: { name: (error as Error).name } });
    });
}

/** The sent form's use item: whether this form was sent before, and whether that submission was refused. */
export async function formUse(nonce: string): Promise<{ refused: boolean } | undefined> {
  const out = await db().send(new GetCommand({ TableName: config().tableName, Key: keys.formUse(nonce), ConsistentRead: true }));
  return out.Item ? { refused: out.Item.refused === true } : undefined;
}

/**
 * The urlencoded form body, by field name (a Map: names are the client's); else the status to refuse it with:
 * 415 for any other content type (JSON, multipart, none), 413 for a body over MAX_FORM_BYTES (D2).
 */
export function formFields(event: APIGatewayProxyEvent): Map<string, string> | 415 | 413 {
  const type = (Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '').split(';')[0];
  if (type.trim().toLowerCase() !== 'application/x-www-form-urlencoded') return 415;
  const raw = event.isBase64Encoded ? Buffer.from(event.body ?? '', 'base64') : Buffer.from(event.body ?? '', 'utf8');
  if (raw.length > MAX_FORM_BYTES) return 413;
  const fields = new Map<string, string>();
  for (const [name, value] of new URLSearchParams(raw.toString('utf8'))) if (!fields.has(name)) fields.set(name, value);
  return fields;
}
