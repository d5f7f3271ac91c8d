/**
 * The two processes of `npm run bench:memory` when the server is measured without its emulators:
 * `emulators <dir>` runs DynamoDB Local (its own JVM) and fauxqs and writes `emulators.json` (their environment) into the data
 * directory; `server <dir>` runs the local runtime as `npm start` does (adapter, handlers, pollers,
 * scheduler, the last two idle) against them, so its RSS is the server's alone.
 */
import { existsSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulators, type Emulators } from '../local/emulators.js';
import { startRuntime } from '../local/runtime.js';
import { resetClients } from '#platform/clients.js';
import { forgetIdBlocks } from '#platform/ids.js';

const [role, dataDir] = process.argv.slice(2);
if (role === 'emulators') {
  const emulators = await startEmulators(dataDir);
  writeFileSync(join(dataDir, 'emulators.json'), JSON.stringify({ env: emulators.env, fresh: emulators.fresh }));
  process.on('SIGTERM', () => void emulators.stop().then(() => process.exit(0)));
} else if (role === 'server') {
  const { env, fresh } = JSON.parse(readFileSync(join(dataDir, 'emulators.json'), 'utf8')) as {
    env: Record<string, string>;
    fresh: boolean;
  };
  Object.assign(process.env, env);
  resetClients();
  forgetIdBlocks();
  const emulators = { env, fresh, fauxqs: undefined, stop: async () => undefined } as unknown as Emulators;
  // Seeded by the first server of the run only.
  const runtime = await startRuntime({
    dataDir,
    port: 0,
    seed: fresh && !existsSync(join(dataDir, 'demo.json')),
    emulators,
    // What is measured is the create: the sync worker and the schedules (which read attachments back) stay idle.
    poller: false,
    schedules: false,
  });
  process.on('SIGTERM', () => void runtime.stop().then(() => process.exit(0)));
} else {
  throw new Error('usage: memory-processes.ts emulators|server <data dir>');
}
