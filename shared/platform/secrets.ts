/**
 * Envelope encryption for secrets at rest (D18). Every secret gets its own random 256-bit data key; the
 * secret is sealed with AES-256-GCM under that data key, and only the wrapped data key is stored beside it.
 * Who wraps the data key is the one switch:
 * - on AWS, KMS (`CREDENTIALS_KMS_KEY_ID`, a key of the stack): GenerateDataKey to seal, Decrypt to open;
 * - locally, a 256-bit key in a file of the data directory (`CREDENTIALS_KEY_FILE`), also AES-256-GCM.
 * The encryption context (for example `{purpose, company}`) is bound to both layers (KMS encryption
 * context, GCM additional data), so a sealed secret copied onto another record does not open.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { kms } from '#platform/clients.js';

export interface SealedSecret {
  v: 1;
  /** Who wrapped the data key. */
  wrap: 'kms' | 'local';
  /** The wrapped data key (base64). */
  key: string;
  iv: string;
  tag: string;
  data: string;
}

export type SecretContext = Record<string, string>;

/** Thrown when a secret cannot be opened (wrong key, tampered record, other context). Its message says no more. */
export class SecretUnavailableError extends Error {
  constructor(reason: string) {
    super(`secret not available: ${reason}`);
    this.name = 'SecretUnavailableError';
  }
}

const aad = (context: SecretContext) =>
  Buffer.from(
    JSON.stringify(
      Object.keys(context)
        .sort()
        .map((k) => [k, context[k]]),
    ),
  );

function gcmSeal(key: Buffer, plaintext: Buffer, context: SecretContext) {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad(context));
  const data = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv, tag: cipher.getAuthTag(), data };
}

function gcmOpen(key: Buffer, iv: Buffer, tag: Buffer, data: Buffer, context: SecretContext): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAAD(aad(context));
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(data), decipher.final()]);
  } catch {
    throw new SecretUnavailableError('authentication failed');
  }
}

/** Creates the local key file (mode 0600) if it does not exist yet. */
export function ensureLocalKeyFile(path: string): void {
  if (!existsSync(path)) writeFileSync(path, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' });
}

function localKey(): Buffer {
  const file = process.env.CREDENTIALS_KEY_FILE;
  if (!file) throw new SecretUnavailableError('neither CREDENTIALS_KMS_KEY_ID nor CREDENTIALS_KEY_FILE is set');
  const key = Buffer.from(readFileSync(file, 'utf8').trim(), 'hex');
  if (key.length !== 32) throw new SecretUnavailableError('the local key file does not hold a 256-bit hex key');
  return key;
}

async function newDataKey(context: SecretContext): Promise<{ plaintext: Buffer; wrapped: Buffer; wrap: SealedSecret['wrap'] }> {
  const keyId = process.env.CREDENTIALS_KMS_KEY_ID;
  if (keyId) {
    const [client, { GenerateDataKeyCommand }] = await Promise.all([kms(), import('#platform/kms.js')]);
    const out = await client.send(new GenerateDataKeyCommand({ KeyId: keyId, KeySpec: 'AES_256', EncryptionContext: context }));
    return { plaintext: Buffer.from(out.Plaintext!), wrapped: Buffer.from(out.CiphertextBlob!), wrap: 'kms' };
  }
  const plaintext = randomBytes(32);
  const sealed = gcmSeal(localKey(), plaintext, context);
  return { plaintext, wrapped: Buffer.concat([sealed.iv, sealed.tag, sealed.data]), wrap: 'local' };
}

async function unwrapDataKey(sealed: SealedSecret, context: SecretContext): Promise<Buffer> {
  const wrapped = Buffer.from(sealed.key, 'base64');
  if (sealed.wrap === 'kms') {
    try {
      const [client, { DecryptCommand }] = await Promise.all([kms(), import('#platform/kms.js')]);
      const out = await client.send(new DecryptCommand({ CiphertextBlob: wrapped, EncryptionContext: context }));
      return Buffer.from(out.Plaintext!);
    } catch (error) {
      if ((error as Error).name === 'InvalidCiphertextException') throw new SecretUnavailableError('KMS refused the data key');
      throw error;
    }
  }
  return gcmOpen(localKey(), wrapped.subarray(0, 12), wrapped.subarray(12, 28), wrapped.subarray(28), context);
}

/** Seals a secret under a fresh data key. */
export async function sealSecret(plaintext: string, context: SecretContext): Promise<SealedSecret> {
  const dataKey = await newDataKey(context);
  try {
    const sealed = gcmSeal(dataKey.plaintext, Buffer.from(plaintext, 'utf8'), context);
    return {
      v: 1,
      wrap: dataKey.wrap,
      key: dataKey.wrapped.toString('base64'),
      iv: sealed.iv.toString('base64'),
      tag: sealed.tag.toString('base64'),
      data: sealed.data.toString('base64'),
    };
  } finally {
    dataKey.plaintext.fill(0);
  }
}

/** Opens a sealed secret; throws SecretUnavailableError when it does not open under this context. */
export async function openSecret(sealed: SealedSecret, context: SecretContext): Promise<string> {
  if (sealed?.v !== 1) throw new SecretUnavailableError('unknown format');
  const dataKey = await unwrapDataKey(sealed, context);
  try {
    return gcmOpen(
      dataKey,
      Buffer.from(sealed.iv, 'base64'),
      Buffer.from(sealed.tag, 'base64'),
      Buffer.from(sealed.data, 'base64'),
      context,
    ).toString('utf8');
  } finally {
    dataKey.fill(0);
  }
}
