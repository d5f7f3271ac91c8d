/**
 * Jest's global set-up: DynamoDB Local (AWS's emulator) for the whole run, one JVM per worker
 * (P251; `DYNAMODB_LOCAL_INSTANCES` sets another number): each JVM answers its requests on one SQLite thread
 * in turn, so a worker no longer waits on another's requests (test/setup-env.ts gives each worker its own, by
 * `JEST_WORKER_ID`). Every test
 * runtime, and every admin command a test spawns, finds its JVM through `DYNAMODB_LOCAL_ENDPOINT` and makes a
 * table of its own (local/emulators.ts); the global teardown stops the JVMs. Jest loads this file outside its
 * transform, so the TypeScript module is loaded through tsx.
 */
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { tsImport } from 'tsx/esm/api';

/** Memory-backed storage where the system has it (Linux's /dev/shm), else the temporary directory. */
const scratch = () => (existsSync('/dev/shm') ? '/dev/shm' : tmpdir());

const PREFIX = 'his-dynamodb-';
const OWNER = 'owner.pid';

/**
 * Removes the database directories of runs that were killed before their teardown: those whose owner (the Jest
 * process that made them, named in `owner.pid`) is gone. In /dev/shm they would hold memory until the machine
 * restarts. A directory of a run still going beside this one is kept, and so is one without an owner (made before
 * owners were written, or being made right now). `alive` is `pidAlive` of local/admin/context.ts.
 */
export function removeOrphanedDirs(alive, root = scratch()) {
  for (const name of readdirSync(root)) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = join(root, name);
    let owner;
    try {
      owner = Number(readFileSync(join(dir, OWNER), 'utf8'));
    } catch {
      continue;
    }
    if (alive(owner)) continue;
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The directory of a new run's database, owned by this process. */
export function ownedDir(root = scratch()) {
  const dir = mkdtempSync(join(root, PREFIX));
  writeFileSync(join(dir, OWNER), String(process.pid));
  return dir;
}

export default async function globalSetup(globalConfig) {
  if (process.env.DYNAMODB_LOCAL_ENDPOINT) return;
  const { startDynamoDbLocal } = await tsImport('../../local/dynamodb-local.ts', import.meta.url);
  const { pidAlive } = await tsImport('../../local/admin/context.ts', import.meta.url);
  const instances = Math.max(1, Number(process.env.DYNAMODB_LOCAL_INSTANCES ?? globalConfig?.maxWorkers ?? 1));
  const heapMb = Number(process.env.DYNAMODB_LOCAL_HEAP_MB ?? 1024);
  // Each JVM's database is a file in memory-backed storage, not DynamoDB Local's in-memory mode, so that its stream
  // records can be indexed (P364): a worker's JVM serves some forty test files' tables in turn.
  removeOrphanedDirs(pidAlive);
  const dirs = Array.from({ length: instances }, () => ownedDir());
  const started = await Promise.all(dirs.map((dbPath) => startDynamoDbLocal({ heapMb, dbPath })));
  globalThis.__dynamoDbLocal = started;
  globalThis.__dynamoDbLocalDirs = dirs;
  if (started.some((d) => !d.streamIndexed))
    process.stderr.write('DynamoDB Local: its stream records could not be indexed (P364); the run works, only slower\n');
  process.env.DYNAMODB_LOCAL_ENDPOINTS = started.map((d) => d.endpoint).join(',');
  process.env.DYNAMODB_LOCAL_ENDPOINT = started[0].endpoint;
}
