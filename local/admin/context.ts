/**
 * Where a command runs, and the session that runs it. Decided in this order (docs/admin.md):
 *  1. `$DATA_DIR/runtime.json` exists and its pid is alive: the emulators of the running `npm start`.
 *  2. `TABLE_NAME` is set: AWS, as configured by the standard AWS environment and credential chain.
 *  3. Otherwise: embedded emulators started on `$DATA_DIR` for the duration of the command.
 */
import { existsSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { join, resolve } from 'node:path';

/** The file `npm start` writes in its data directory (RUNTIME_FILE of local/runtime.ts, which this
 *  module does not import: that would load the whole HTTP stack for one constant). */
const RUNTIME_FILE = 'runtime.json';

export type Where = { mode: 'server'; url: string; pid: number } | { mode: 'aws' } | { mode: 'embedded'; dataDir: string };

/** Whether a process with this id is running (signal 0 only checks; EPERM is another user's live process). */
export function pidAlive(pid: unknown): boolean {
  if (typeof pid !== 'number' || !Number.isInteger(pid) || pid < 1) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const isLoopback = (host: string) => ['127.0.0.1', 'localhost', '[::1]', '::1'].includes(host) || host.startsWith('127.');

function isLoopbackUrl(url: string): boolean {
  try {
    return isLoopback(new URL(url).hostname);
  } catch {
    return false;
  }
}

/** Whether something accepts TCP connections at the URL's host and port. */
function reachable(url: string, timeoutMs = 1000): Promise<boolean> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.resolve(false);
  }
  const port = Number(target.port || (target.protocol === 'https:' ? 443 : 80));
  return new Promise((done) => {
    const socket = net.connect({ host: target.hostname.replace(/^\[|\]$/g, ''), port });
    const finish = (ok: boolean) => {
      socket.destroy();
      done(ok);
    };
    socket.setTimeout(timeoutMs, () => finish(false));
    socket.once('connect', () => finish(true));
    socket.once('error', () => finish(false));
  });
}

async function runningServer(dataDir: string): Promise<{ url: string; pid: number; env: Record<string, string> } | undefined> {
  const file = join(dataDir, RUNTIME_FILE);
  if (!existsSync(file)) return undefined;
  let runtime: { pid?: unknown; url?: unknown; env?: unknown };
  try {
    runtime = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    return undefined; // being written, or damaged: treat as absent
  }
  if (!pidAlive(runtime.pid) || !runtime.env || typeof runtime.env !== 'object') return undefined;
  const env = runtime.env as Record<string, string>;
  // A live pid whose emulators do not answer is a stale file whose pid was reused by another process.
  if (!env.AWS_ENDPOINT_URL_DYNAMODB || !(await reachable(env.AWS_ENDPOINT_URL_DYNAMODB))) return undefined;
  return { url: String(runtime.url ?? ''), pid: runtime.pid as number, env };
}

export interface ActionOptions {
  /** Keep the service's id block size (an import creates many jobs at once). By default the tool reserves
   *  one id per counter update, so operators get consecutive ids (partner 1, 2, ...). */
  serviceIdBlocks?: boolean;
}

/**
 * One run of the tool: connects to the storage when a command's action starts, keeps the action's result
 * for printing, and stops embedded emulators afterwards. Area modules wrap their actions with `action()`.
 */
export class Session {
  /** The JSON document the command printed, once its action has run. */
  result: unknown;
  where: Where | undefined;
  /** The data directory of embedded mode, once its emulators are starting. */
  embeddedDataDir: string | undefined;
  private stopStorage: (() => Promise<void>) | undefined;

  /** Wraps a command's work (parsed arguments in, JSON document out) as a commander action. */
  action<A extends unknown[]>(work: (...args: A) => Promise<unknown>, options: ActionOptions = {}): (...args: A) => Promise<void> {
    return async (...args: A) => {
      if (!options.serviceIdBlocks) process.env.ID_BLOCK_SIZE ??= '1';
      await this.connect(resolve(process.env.DATA_DIR || '.data'));
      if (process.env.HIRING_ADMIN_DEBUG) process.stderr.write(`hiring-admin: ${JSON.stringify(this.where)}\n`);
      this.result = await work(...args);
    };
  }

  /** Points the environment at the storage the command will use. */
  private async connect(dataDir: string): Promise<void> {
    const server = await runningServer(dataDir);
    if (server) {
      Object.assign(process.env, server.env);
      this.where = { mode: 'server', url: server.url, pid: server.pid };
      return;
    }
    const endpoint = process.env.AWS_ENDPOINT_URL_DYNAMODB;
    const staleLocalEndpoint = endpoint !== undefined && endpoint !== '' && isLoopbackUrl(endpoint) && !(await reachable(endpoint));
    if (process.env.TABLE_NAME && !staleLocalEndpoint) {
      this.where = { mode: 'aws' };
      return;
    }
    const { startEmulators } = await import('../emulators.js');
    this.embeddedDataDir = dataDir;
    const emulators = await startEmulators(dataDir);
    this.where = { mode: 'embedded', dataDir };
    this.stopStorage = () => emulators.stop();
  }

  /** Stops what `connect` started; the command's outcome is printed already, so a failure here is ignored. */
  async stop(): Promise<void> {
    try {
      await this.stopStorage?.();
    } catch {
      // nothing to report
    }
  }
}
