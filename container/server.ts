/**
 * The container's entry point: `node server.mjs [ingest|serve]` (default `ingest`), listening on PORT
 * (default 8080) on HOST (default 0.0.0.0). On SIGTERM (ECS stopping a task) it stops accepting connections
 * and lets the requests in flight finish.
 */
import type { AddressInfo } from 'node:net';
import { logger } from '#platform/logger.js';
import { checkEnvironment, createContainerServer, SERVER_MODES, type ServerMode } from './ingest.js';

const mode = (process.argv[2] ?? process.env.SERVER_MODE ?? 'ingest') as ServerMode;
if (!SERVER_MODES.includes(mode)) {
  logger.error(`unknown mode "${mode}": use ${SERVER_MODES.join(' or ')}`);
  process.exit(2);
}
try {
  checkEnvironment(mode);
} catch (error) {
  logger.error((error as Error).message);
  process.exit(2);
}

const server = createContainerServer({
  mode,
  authorizerCacheTtlMs: Number(process.env.AUTHORIZER_CACHE_TTL_SECONDS ?? 300) * 1000,
});
server.listen(Number(process.env.PORT ?? 8080), process.env.HOST ?? '0.0.0.0', () => {
  const { address, port } = server.address() as AddressInfo;
  logger.info('listening', { mode, address, port });
});

let stopping = false;
function shutdown(signal: string): void {
  if (stopping) return;
  stopping = true;
  logger.info('shutting down', { signal });
  server.close(() => process.exit(0));
  server.closeIdleConnections();
  // ECS sends SIGKILL after its stop timeout (30 s); leave before that.
  setTimeout(() => process.exit(0), 25_000).unref();
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
