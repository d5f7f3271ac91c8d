/**
 * Benchmark harness: the service runs in a child process (`local/server.ts`, as `npm start` runs it)
 * with a fresh data directory, so what a benchmark measures in its own process is the client's or
 * the handler's cost, not the emulators'.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface ServiceProcess {
  url: string;
  env: Record<string, string>;
  demo: { partnerId: number; companyId: number; partnerKey: string; companyKey: string };
  dataDir: string;
  stop(): Promise<void>;
}

/** `env`: more environment for the server (`npm start`'s `local/server.ts`), such as `SCHEDULES: '0'`. */
export async function startService(env: Record<string, string> = {}): Promise<ServiceProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'his-bench-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'local/server.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'ERROR', AUTHORIZER_CACHE_TTL_SECONDS: '300', ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // `BENCH_START_TIMEOUT_MS`: more patience on a machine loaded by other work (a start took 65 s at a load average of 34).
  const deadline = Date.now() + Number(process.env.BENCH_START_TIMEOUT_MS ?? 60_000);
  while (!existsSync(join(dataDir, 'demo.json')) || !existsSync(join(dataDir, 'runtime.json'))) {
    if (Date.now() > deadline || child.exitCode !== null) throw new Error('the service did not start');
    await new Promise((r) => setTimeout(r, 100));
  }
  // A file may exist before the server has finished writing it: read until it parses.
  const readJson = async (name: string): Promise<any> => {
    for (;;) {
      try {
        return JSON.parse(readFileSync(join(dataDir, name), 'utf8'));
      } catch (error) {
        if (!(error instanceof SyntaxError) || Date.now() > deadline) throw error;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
  };
  const runtime = (await readJson('runtime.json')) as { url: string; env: Record<string, string> };
  const demo = await readJson('demo.json');
  return {
    url: runtime.url,
    env: runtime.env,
    demo,
    dataDir,
    async stop() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
