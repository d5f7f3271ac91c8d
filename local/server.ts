/** `npm start`: the service on this machine, with data in DATA_DIR (default .data) on PORT (default 3000). */
import { resolve } from 'node:path';
import { logger } from '#platform/logger.js';
import { startRuntime } from './runtime.js';

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const port = Number(process.env.PORT ?? 3000);

// The demo shows the outcome loop within seconds (P300): under `npm start` outcomes are read every 6 s unless
// OUTCOME_POLL_MINUTES says otherwise; the sandbox moves an application SANDBOX_OUTCOME_SECONDS (5) after it.
process.env.OUTCOME_POLL_MINUTES ??= '0.1';

const runtime = await startRuntime({
  dataDir,
  port,
  host: process.env.HOST ?? '127.0.0.1',
  seed: process.env.DEMO !== '0',
  // SCHEDULES=0: no scheduled functions and no TTL reaper (bench:scale, whose 100k table a reaper Scan would hold).
  schedules: process.env.SCHEDULES !== '0',
  // WORKERS=0: the API only; queued work waits, persisted under DATA_DIR, for a start with workers.
  poller: process.env.WORKERS !== '0',
  // Every link, the external-apply follow-up e-mail's included, is built on this server's address unless
  // PUBLIC_BASE_URL says otherwise (issue 42 item 6).
  publicBaseDefault: true,
});

// The start banner is the command's own output for the person at the terminal, not a log; it names no key
// (the demo keys stay in DATA_DIR/demo.json).
const banner = [
  `Hiring Integration Service listening on ${runtime.url}`,
  `Data directory: ${dataDir}`,
  `API reference: ${runtime.url}/docs`,
  ...(runtime.demo
    ? [
        `Demo partner ${runtime.demo.partnerId}, demo company ${runtime.demo.companyId}. Try:`,
        `  KEY=$(node -p "require('${dataDir}/demo.json').partnerKey")`,
        `  curl -s -H "Authorization: Bearer $KEY" -H "Company-Id: ${runtime.demo.companyId}" ${runtime.url}/jobs`,
        `  curl -s -H "Authorization: Bearer $KEY" ${runtime.url}/companies/`,
      ]
    : []),
];
process.stdout.write(`${banner.join('\n')}\n`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  await runtime.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
