/**
 * Envelope encryption of secrets at rest (D18): locally under a key file, on AWS under KMS (here its
 * simulator on loopback). A sealed secret opens only with the same key and the same encryption context.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { resetClients } from '#platform/clients.js';
import { ensureLocalKeyFile, openSecret, sealSecret } from '#platform/secrets.js';
import { startKmsSimulator, type KmsSimulator } from '../simulators/kms.js';

const dir = mkdtempSync(join(tmpdir(), 'his-secrets-'));
const context = { purpose: 'ats-credentials', company: '7', ats: 'lever' };
const secret = JSON.stringify({ site: 'acme', api_key: 'lever-secret-key-1' });

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('locally: AES-256-GCM under the key file of the data directory', () => {
  beforeAll(() => {
    delete process.env.CREDENTIALS_KMS_KEY_ID;
    process.env.CREDENTIALS_KEY_FILE = join(dir, 'credentials.key');
    ensureLocalKeyFile(process.env.CREDENTIALS_KEY_FILE);
  });

  test('seals under a fresh data key each time and opens again', async () => {
    const a = await sealSecret(secret, context);
    const b = await sealSecret(secret, context);
    expect(a).toMatchObject({ v: 1, wrap: 'local' });
    expect(a.data).not.toBe(b.data);
    expect(a.key).not.toBe(b.key);
    expect(JSON.stringify(a)).not.toContain('lever-secret-key-1');
    expect(await openSecret(a, context)).toBe(secret);
  });

  test('a tampered record, another context or another key file does not open', async () => {
    const sealed = await sealSecret(secret, context);
    const flipped = Buffer.from(sealed.data, 'base64');
    flipped[0] ^= 1;
    await expect(openSecret({ ...sealed, data: flipped.toString('base64') }, context)).rejects.toThrow('secret not available');
    await expect(openSecret(sealed, { ...context, company: '8' })).rejects.toThrow('secret not available');
    const other = join(dir, 'other.key');
    writeFileSync(other, 'ab'.repeat(32));
    process.env.CREDENTIALS_KEY_FILE = other;
    try {
      await expect(openSecret(sealed, context)).rejects.toThrow('secret not available');
    } finally {
      process.env.CREDENTIALS_KEY_FILE = join(dir, 'credentials.key');
    }
  });
});

describe('on AWS: data keys from KMS with the encryption context', () => {
  let kms: KmsSimulator;
  beforeAll(async () => {
    kms = await startKmsSimulator();
    process.env.AWS_ENDPOINT_URL_KMS = kms.server.url;
    process.env.CREDENTIALS_KMS_KEY_ID = kms.keyId;
    resetClients();
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_KMS;
    delete process.env.CREDENTIALS_KMS_KEY_ID;
    resetClients();
    await kms.server.stop();
  });

  test('GenerateDataKey seals, Decrypt opens, both with the context; another context is refused by KMS', async () => {
    const sealed = await sealSecret(secret, context);
    expect(sealed.wrap).toBe('kms');
    expect(kms.calls[0]).toEqual({
      target: 'GenerateDataKey',
      input: { KeyId: kms.keyId, KeySpec: 'AES_256', EncryptionContext: context },
    });
    expect(await openSecret(sealed, context)).toBe(secret);
    expect(kms.calls[1]).toMatchObject({ target: 'Decrypt', input: { EncryptionContext: context } });
    await expect(openSecret(sealed, { ...context, ats: 'personio' })).rejects.toThrow('KMS refused the data key');
    // Nothing but the wrapped data key went to KMS: never the secret.
    expect(JSON.stringify(kms.calls)).not.toContain('lever-secret-key-1');
  });
});
