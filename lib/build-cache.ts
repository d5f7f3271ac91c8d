/**
 * A content-keyed cache of one build's output directory (P340): the function bundles of a synthesis
 * (lib/function-bundle.ts) and the admin tool's bundle the tests run (test/helpers/admin-cli.ts, P341). A build
 * reports the files it was made from (esbuild's metafile); the next lookup hashes those files again, with what
 * else decides the output (the build's definition files, the names of the files in its source folders, since an
 * added file can change what an import resolves to), and reuses the output when nothing changed. esbuild's output
 * is a function of its inputs and options, and the options are in the definition files.
 */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from './project-paths.js';

export interface BuildCache {
  /** The cache's directory: the last build's input list and its output, the only entry kept. */
  dir: string;
  /** Project files that define the build (its options, the lockfile): hashed on every lookup. */
  definition: readonly string[];
  /** Project folders whose file names (not contents) are hashed. */
  folders: readonly string[];
  /** Anything else the output depends on (the bundler's version, the entries built). */
  salt: string;
}

/** The list of files the cached output was made from, in the cache directory. */
const INPUTS_FILE = 'inputs.json';

/**
 * The key of the output made from `inputs` (project-relative paths). An input in a plugin's namespace
 * (`substitute:...`) is hashed by its name: its content comes from a definition file.
 */
export function buildKey(cache: BuildCache, inputs: readonly string[]): string {
  const hash = createHash('sha256').update(`${cache.salt}\0`);
  for (const folder of cache.folders) {
    hash.update(`${readdirSync(join(projectRoot, folder), { recursive: true, encoding: 'utf8' }).sort().join('\n')}\0`);
  }
  for (const file of [...cache.definition, ...inputs]) {
    const path = join(projectRoot, file);
    hash.update(`${file}\0`);
    if (!/^[\w-]+:/.test(file) && existsSync(path)) hash.update(readFileSync(path));
    hash.update('\0');
  }
  return hash.digest('hex').slice(0, 24);
}

/** The cached output directory if it is still what the build would make, else undefined. */
export function cachedBuild(cache: BuildCache): string | undefined {
  let inputs: string[];
  try {
    inputs = JSON.parse(readFileSync(join(cache.dir, INPUTS_FILE), 'utf8')) as string[];
  } catch {
    return undefined; // no build yet (or one being written)
  }
  const entry = join(cache.dir, buildKey(cache, inputs));
  return existsSync(join(entry, 'complete')) ? entry : undefined;
}

/**
 * Makes a copy of `output` (made from `inputs`) the cache's entry, written aside and renamed, so that a reader
 * never sees half of one; gives the entry's directory.
 */
export function storeBuild(cache: BuildCache, output: string, inputs: readonly string[]): string {
  mkdirSync(cache.dir, { recursive: true });
  const sorted = [...new Set(inputs)].sort();
  const key = buildKey(cache, sorted);
  const entry = join(cache.dir, key);
  const scratch = `${entry}.${process.pid}.tmp`;
  cpSync(output, scratch, { recursive: true });
  writeFileSync(join(scratch, 'complete'), '');
  try {
    renameSync(scratch, entry);
  } catch {
    rmSync(scratch, { recursive: true, force: true }); // another process stored the same output first
  }
  writeFileSync(`${scratch}.inputs`, JSON.stringify(sorted));
  renameSync(`${scratch}.inputs`, join(cache.dir, INPUTS_FILE));
  // Older outputs are of no more use (what another process is writing is left to it).
  for (const name of readdirSync(cache.dir)) {
    if (name !== key && name !== INPUTS_FILE && !name.includes('.tmp')) rmSync(join(cache.dir, name), { recursive: true, force: true });
  }
  return entry;
}
