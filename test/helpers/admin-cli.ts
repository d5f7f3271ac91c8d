/** The admin tool in a child process (the real bin shim), as an operator's shell runs it. */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

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
export function adminCli(args: string[], dataDir: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [ADMIN_SHIM, ...args], { env: cleanEnv(dataDir), cwd: process.cwd() }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
      let json: unknown;
      try {
        json = JSON.parse(code === 0 ? stdout : stderr);
      } catch {
        json = undefined;
      }
      resolve({ code, stdout, stderr, json });
    });
  });
}
