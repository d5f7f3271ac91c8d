/**
 * A KMS simulator for the two calls envelope encryption makes (AWS JSON 1.1 protocol): GenerateDataKey
 * returns a fresh data key and its "wrapped" form, Decrypt unwraps it only under the same key id and the
 * same encryption context (InvalidCiphertextException otherwise), as KMS does. It records the calls.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { startSimulatorServer, type SimulatorServer } from './server.js';

export interface KmsSimulator {
  server: SimulatorServer;
  keyId: string;
  calls: { target: string; input: Record<string, unknown> }[];
}

const master = randomBytes(32);
const contextOf = (value: unknown) => JSON.stringify(Object.entries((value ?? {}) as Record<string, string>).sort());

export async function startKmsSimulator(keyId = 'arn:aws:kms:eu-central-1:000000000000:key/test-key'): Promise<KmsSimulator> {
  const sim = { keyId, calls: [] } as unknown as KmsSimulator;
  const error = (type: string) => ({
    status: 400,
    body: { __type: type, message: type },
    headers: { 'Content-Type': 'application/x-amz-json-1.1' },
  });
  sim.server = await startSimulatorServer((req) => {
    const target = String(req.headers['x-amz-target'] ?? '').replace('TrentService.', '');
    const input = JSON.parse(req.body.toString('utf8') || '{}') as Record<string, unknown>;
    sim.calls.push({ target, input });
    const headers = { 'Content-Type': 'application/x-amz-json-1.1' };
    if (target === 'GenerateDataKey') {
      if (input.KeyId !== keyId) return error('NotFoundException');
      const plaintext = randomBytes(32);
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', master, iv);
      cipher.setAAD(Buffer.from(`${keyId}|${contextOf(input.EncryptionContext)}`));
      const blob = Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
      return {
        status: 200,
        headers,
        body: { KeyId: keyId, Plaintext: plaintext.toString('base64'), CiphertextBlob: blob.toString('base64') },
      };
    }
    if (target === 'Decrypt') {
      const blob = Buffer.from(String(input.CiphertextBlob), 'base64');
      try {
        const decipher = createDecipheriv('aes-256-gcm', master, blob.subarray(0, 12));
        decipher.setAAD(Buffer.from(`${keyId}|${contextOf(input.EncryptionContext)}`));
        decipher.setAuthTag(blob.subarray(blob.length - 16));
        const plaintext = Buffer.concat([decipher.update(blob.subarray(12, blob.length - 16)), decipher.final()]);
        return { status: 200, headers, body: { KeyId: keyId, Plaintext: plaintext.toString('base64') } };
      } catch {
        return error('InvalidCiphertextException');
      }
    }
    return error('UnknownOperationException');
  });
  return sim;
}
