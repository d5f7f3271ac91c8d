/**
 * The admin tool in a child process (the real bin shim), as an operator's shell runs it, and the events the
 * topic delivered to a test queue.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { sqs } from '#platform/clients.js';

export const ADMIN_SHIM = join(process.cwd(), 'bin', 'hiring-admin.js');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed on success, stderr parsed on failure. */
  json: any;
}

/** The environment of a shell that has no AWS or runtime variables: the tool must find its storage itself. */
export function cleanEnv(dataDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (/^(AWS_|TABLE_NAME$|BUCKET_NAME$|SYNC_|EVENTS_TOPIC_ARN$|CURSOR_SECRET$|NODE_OPTIONS$|ID_BLOCK_SIZE$)/.test(name)) continue;
    env[name] = value;
  }
  return { ...env, DATA_DIR: dataDir, LOG_LEVEL: 'SILENT' };
}

/** Runs `hiring-admin ARGS` on `dataDir` (a running test runtime's, found through its runtime.json). */
export function adminCli(args: string[], dataDir: string, env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [ADMIN_SHIM, ...args],
      { env: { ...cleanEnv(dataDir), ...env }, cwd: process.cwd() },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        let json: unknown;
        try {
          json = JSON.parse(code === 0 ? stdout : stderr);
        } catch {
          json = undefined;
        }
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

/** `adminCli` with the data directory first and extra variables (the end-to-end tests of issue 43). */
export const runAdmin = (dataDir: string, args: string[], env: NodeJS.ProcessEnv = {}) => adminCli(args, dataDir, env);

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
