/**
 * The admin tool (the bin shim in a child process) against a test runtime's data directory, and the events the
 * topic delivered to a test queue: what the end-to-end tests of issue 43 use (the older tests keep their own).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '#platform/clients.js';

/** Runs `hiring-admin ARGS`; its printed JSON (stdout on success, stderr on failure) and exit code. */
export function runAdmin(dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}): Promise<{ code: number; json: any }> {
  const base = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir, LOG_LEVEL: 'SILENT' };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(process.cwd(), 'bin', 'hiring-admin.js'), ...args],
      { env: { ...base, ...env } },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let json: unknown;
        try {
          json = JSON.parse(code === 0 ? stdout : stderr);
        } catch {
          json = { stdout, stderr };
        }
        resolve({ code, json });
      },
    );
  });
}

/** Every event the topic delivered to the fauxqs queue `queue` since the last call (deleted as read). */
export async function receivedEvents(fauxqsPort: number, queue: string): Promise<Record<string, any>[]> {
  const url = `http://127.0.0.1:${fauxqsPort}/000000000000/${queue}`;
  const out: Record<string, any>[] = [];
  for (;;) {
    const res = await sqs().send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!res.Messages?.length) return out;
    for (const m of res.Messages) {
      out.push(JSON.parse(JSON.parse(m.Body!).Message));
      await sqs().send(new DeleteMessageCommand({ QueueUrl: url, ReceiptHandle: m.ReceiptHandle! }));
    }
  }
}
