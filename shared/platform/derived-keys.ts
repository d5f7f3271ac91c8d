/**
 * Keys derived from the stack's `CURSOR_SECRET` (HKDF-SHA256, so the secret's form does not matter), one per
 * purpose (`info` names it, so keys of different purposes are independent): the list cursors, the connect
 * page's form tokens (D20), the apply tokens (P197), the external apply links and the duplicate-application
 * keys. `seal`/`open` make a JSON payload into an opaque token and back (AES-256-GCM, iv | ciphertext | tag,
 * base64url): a client can neither read nor change what it carries.
 */
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

function secret(): string {
  const configured = process.env.CURSOR_SECRET;
  if (configured) return configured;
  // Deployed functions must have the stack's secret; only local runs and unit tests may use a fixed one.
  if (process.env.AWS_LAMBDA_FUNCTION_NAME) throw new Error('CURSOR_SECRET is not set');
  return 'local-development-cursor-secret';
}

const derived = new Map<string, { from: string; key: Buffer }>();

/** The 256-bit key for one purpose (kept while the secret stays the same). */
export function derivedSecretKey(info: string): Buffer {
  const from = secret();
  let entry = derived.get(info);
  if (entry?.from !== from) derived.set(info, (entry = { from, key: Buffer.from(hkdfSync('sha256', from, '', info, 32)) }));
  return entry.key;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

/** An opaque token carrying `payload`, sealed with the key of `info`. */
export function seal(info: string, payload: unknown): string {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', derivedSecretKey(info), iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
}

/** The payload of a token `seal` made with the key of `info`; undefined for anything else (or one over `maxChars`). */
export function open(info: string, token: string, maxChars: number): unknown {
  if (token.length > maxChars || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
  const bytes = Buffer.from(token, 'base64url');
  if (bytes.length <= IV_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', derivedSecretKey(info), bytes.subarray(0, IV_BYTES));
    decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
    return JSON.parse(
      Buffer.concat([decipher.update(bytes.subarray(IV_BYTES, bytes.length - TAG_BYTES)), decipher.final()]).toString('utf8'),
    );
  } catch {
    return undefined;
  }
}
