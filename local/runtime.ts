/**
 * The whole service on one machine: emulators, the API Gateway stand-in on an HTTP port, and (on first
 * start with an empty data directory) the demo data. `npm start` and the HTTP tests both use this.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startEmulators, startTtlReaper, type Emulators } from './emulators.js';
import { openApiDocument } from '#http/openapi.js';
import { connectorSettings } from '#delivery/connectors/registry.js';
import { createHttpAdapter } from './http-adapter.js';
import { startQueuePoller, type QueuePoller } from './queue-poller.js';
import { startEventRelay, type EventRelay } from './stream-relay.js';
import { startScheduler, type Scheduler } from './scheduler.js';
import { readDemo, seedDemo, type Demo } from './seed.js';
import { SECURITY_HEADERS } from '#http/response-headers.js';

export interface RuntimeOptions {
  dataDir: string;
  port?: number;
  host?: string;
  /** Seed the demo partner, company, keys and jobs when the data directory is new. */
  seed?: boolean;
  authorizerCacheTtlMs?: number;
  /** Run the scheduled handlers on their timers (tests call `scheduler.run` instead). */
  schedules?: boolean;
  /**
   * Feed the sync queue to the worker and the event outbox to the relay in the background (tests call
   * `poller.runOnce`/`drain` and `relay.drain` instead).
   */
  poller?: boolean;
  /** Delete the table when stopping (a test runtime's table in the test run's shared DynamoDB Local). */
  dropTable?: boolean;
  /**
   * `PUBLIC_BASE_URL` when it is not configured: this server's own address (`npm start`), so that every link
   * (magic links, `apply_webhooks`, the external-apply follow-up e-mail) has a base. Tests leave it unset.
   */
  publicBaseDefault?: boolean;
  /** Emulators already running (in another process, for `npm run bench:memory`); by default they start in this one. */
  emulators?: Emulators;
}

export interface Runtime {
  url: string;
  port: number;
  dataDir: string;
  emulators: Emulators;
  scheduler: Scheduler;
  poller: QueuePoller;
  /** Feeds the job import queue to the import worker (D14). */
  importPoller: QueuePoller;
  /** Feeds the table's stream to the event relay (P115, P184), as Lambda's event source mapping does on AWS. */
  relay: EventRelay;
  /** Feeds the webhook queue to the webhook worker (D19). */
  webhookPoller: QueuePoller;
  demo?: Demo;
  stop(): Promise<void>;
}

/** Written while the runtime runs, so the admin tool can reach the same emulators. */
export const RUNTIME_FILE = 'runtime.json';

export async function startRuntime(options: RuntimeOptions): Promise<Runtime> {
  const host = options.host ?? '127.0.0.1';
  const emulators = options.emulators ?? (await startEmulators(options.dataDir, { dropTable: options.dropTable }));
  process.env.CAPACITY_HEADER ??= '1';
  const openApiJson = JSON.stringify(openApiDocument(), null, 2);
  const adapter = createHttpAdapter({
    authorizerCacheTtlMs: options.authorizerCacheTtlMs ?? Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS ?? 300) * 1000,
    // The generated OpenAPI document, without authentication (local only; not a route of the API).
    extraRoutes: {
      'GET /openapi.json': (_req, res) => {
        res.writeHead(200, {
          'Content-Type': 'application/json',
          ...SECURITY_HEADERS,
          'Content-Length': String(Buffer.byteLength(openApiJson)),
        });
        res.end(openApiJson);
      },
    },
  });
  // The adapter answers every error itself; should answering fail too, drop that connection, not the process.
  const server: Server = createServer((req, res) => void adapter(req, res).catch(() => res.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const url = `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`;
  // Listening on every interface, the server has no one address of its own: links then follow the request's Host.
  if (options.publicBaseDefault && host !== '0.0.0.0' && !process.env.PUBLIC_BASE_URL) process.env.PUBLIC_BASE_URL = url;
  const runtimeFile = join(options.dataDir, RUNTIME_FILE);
  // The ATS hosts this server uses go along, so that the admin tool (connect, jobs sync) talks to the same ATSs.
  const atsUrls = Object.fromEntries(connectorSettings().flatMap(({ env }) => (process.env[env] ? [[env, process.env[env]!]] : [])));
  // So is the public address, when configured: the admin tool builds `magic_link` on it (D20).
  const publicBase = process.env.PUBLIC_BASE_URL ? { PUBLIC_BASE_URL: process.env.PUBLIC_BASE_URL } : {};
  writeFileSync(runtimeFile, JSON.stringify({ pid: process.pid, url, env: { ...emulators.env, ...atsUrls, ...publicBase } }, null, 2));

  // Locally the e-mail fallback writes .eml files under the data directory, and retries come quickly.
  process.env.EMAIL_OUTBOX_DIR = join(options.dataDir, 'outbox');
  process.env.SYNC_RETRY_BASE_SECONDS ??= '2';
  process.env.SYNC_SWEEP_GRACE_SECONDS ??= '60';
  // The tests run the sweeper hours ahead of the writers (`runWithClock`), a lag no production clock has: the
  // sweeper looks a day behind its last run here (P242), not the grace period.
  process.env.SYNC_SWEEP_LOOKBACK_SECONDS ??= '86400';
  process.env.SYNC_CLAIM_SECONDS ??= '30';
  process.env.WEBHOOK_RETRY_BASE_SECONDS ??= '2';
  const poller = startQueuePoller({ background: options.poller ?? true });
  const importPoller = startQueuePoller({ background: options.poller ?? true, queue: 'jobImportQueue', idleMs: 1000 });
  const relay = startEventRelay({ background: options.poller ?? true });
  const webhookPoller = startQueuePoller({ background: options.poller ?? true, queue: 'webhookQueue' });
  // With the schedules (npm start), expired items are reaped as AWS would (see reapExpiredItems).
  const reaper = (options.schedules ?? true) ? startTtlReaper(emulators.env.TABLE_NAME) : undefined;
  const scheduler = startScheduler({ enabled: options.schedules ?? true, speedup: Number(process.env.LOCAL_SCHEDULE_SPEEDUP ?? 1) });

  let demo: Demo | undefined;
  if (options.seed && emulators.fresh) demo = await seedDemo(options.dataDir);
  else demo = readDemo(options.dataDir);

  return {
    url,
    port,
    dataDir: options.dataDir,
    emulators,
    scheduler,
    poller,
    importPoller,
    relay,
    webhookPoller,
    demo,
    async stop() {
      reaper?.stop();
      scheduler.stop();
      // Every loop is told at once, before any is awaited: a loop still polling while another finishes its
      // work would take an emulator already gone (a signal to the whole process group) for a fault and log it.
      await Promise.all([poller.stop(), importPoller.stop(), relay.stop(), webhookPoller.stop()]);
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      rmSync(runtimeFile, { force: true });
      await emulators.stop();
    },
  };
}
