/**
 * How every function is bundled: the one definition of the esbuild options. The stack's functions are built
 * with it (`ServiceFunction` runs `scripts/bundle-function.ts` as CDK's local bundling), and so is the SDK
 * reference of `npm run bench:cold`; the bundle budgets are checked on what a real `cdk synth` built
 * (test/cdk/cdk-synth-cli.test.ts), so what they measure is exactly what is deployed. This module imports no
 * CDK, so that the bundling script starts quickly.
 */
import { copyFileSync, cpSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { build, version as esbuildVersion, type BuildOptions, type Metafile } from 'esbuild';
import { cachedBuild, storeBuild, type BuildCache } from './build-cache.js';
import { bundleSubstitutions } from './bundle-substitutions.js';
import { allHandlerModules, functionEntry, projectRoot } from './project-paths.js';

// Bundled ESM has no `require`; CommonJS dependencies that esbuild inlines (parts of the AWS SDK) still call
// it for Node built-ins, so the bundle gets one made from its own URL.
const ESM_REQUIRE_SHIM =
  "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);";

/** What the bundles get instead of `@aws-sdk/credential-provider-node` (relative to the project root, esbuild's working directory). */
const LAMBDA_CREDENTIALS = './shared/platform/lambda-credentials.ts';

/** What the bundles get instead of `semver`, which only the X-Ray SDK's unused SDK v2 patcher calls (29 kB). */
const SEMVER_STUB = './shared/platform/semver-stub.ts';

/**
 * Data files a function reads at run time, by handler module: copied (project-relative path → same base
 * name) beside its `index.mjs` after bundling, where the code finds them next to itself, as it does next to
 * its source module. The API reference page is 2.6 MB of HTML, which as a string in the bundle would make
 * ApiDocs the largest function by four times (P167).
 */
export const BUNDLE_FILES: Readonly<Record<string, readonly string[]>> = {
  'pages/docs': ['docs/generated/api-reference.html'],
};

/** The file a function's handler is in, inside its bundle directory: what Lambda's `index.handler` loads. */
export const BUNDLE_ENTRY = 'index.mjs';
/** Where the lazily loaded parts of a bundle go, beside the entry (P283). */
export const BUNDLE_CHUNKS = 'chunks';

/** The entry file of a bundle built into `outdir` with `esbuildOptions()`. */
export const bundleEntryFile = (outdir: string) => join(outdir, BUNDLE_ENTRY);

/**
 * The esbuild options for an entry file: ESM for Node 24 (`index.mjs`), minified, every dependency bundled
 * (the SDK too, so the version we test is the one that runs), packages' ESM builds preferred (smaller bundles,
 * and middy 7 ships nothing else). With code splitting (P283): what the function imports only by dynamic
 * `import()` (each ATS connector, through the registry's `loadConnector`) is a chunk of its own under
 * `chunks/`, loaded on first use, and code two chunks share is a chunk they both import; a cold start loads
 * the entry and the chunks it imports statically, never a connector the invocation does not call. The CDK
 * asset is the whole directory. The source maps ship beside each file but are not loaded at start (no
 * `--enable-source-maps`, which costs every cold start); an unexpected error's stack is mapped to the sources
 * when it is logged (stack-trace.ts). `sourcemap: false` builds the bundle alone, for measuring its size.
 */
export function esbuildOptions(entry: string, options: { outdir: string; sourcemap?: boolean }): BuildOptions {
  return {
    entryPoints: { index: entry },
    absWorkingDir: projectRoot,
    bundle: true,
    platform: 'node',
    target: 'node24',
    format: 'esm',
    outdir: options.outdir,
    outExtension: { '.js': '.mjs' },
    splitting: true,
    chunkNames: `${BUNDLE_CHUNKS}/[name]-[hash]`,
    minify: true,
    sourcemap: options.sourcemap ?? true,
    sourcesContent: false,
    external: [],
    // Every output file (the entry and each chunk) gets it: each is a module of its own.
    banner: { js: ESM_REQUIRE_SHIM },
    mainFields: ['module', 'main'],
    alias: {
      // The SDK's default credential chain would bundle the SSO, STS and sign-in clients (~135 kB); on Lambda
      // the credentials are in the environment, so only that link is bundled (P137).
      '@aws-sdk/credential-provider-node': LAMBDA_CREDENTIALS,
      // Powertools Tracer's X-Ray SDK requires `semver` only to patch AWS SDK v2, which is never done here.
      semver: SEMVER_STUB,
    },
    // Files that packages require by relative paths, which `alias` cannot reach (lib/bundle-substitutions.ts, P231).
    plugins: [bundleSubstitutions()],
    logLevel: 'warning',
  };
}

/**
 * Bundles a function (a module under `functions/`, without extension) into `outdir`, with its data files beside it.
 * Gives the project-relative paths of every file the bundle was made from (esbuild's metafile, and the data files),
 * and the metafile's outputs: each file written, its size, what it imports and which inputs it holds.
 */
export async function bundleFunction(handlerModule: string, outdir: string): Promise<{ inputs: string[]; outputs: Metafile['outputs'] }> {
  const result = await build({ ...esbuildOptions(functionEntry(handlerModule), { outdir }), metafile: true });
  const files = BUNDLE_FILES[handlerModule] ?? [];
  for (const file of files) copyFileSync(join(projectRoot, file), join(outdir, basename(file)));
  return { inputs: [...Object.keys(result.metafile.inputs), ...files], outputs: result.metafile.outputs };
}

/**
 * Beside the bundles of `bundleAllFunctions`, outside every function's directory (so in no asset): each handler
 * module's metafile outputs, `{ [handler module]: outputs }`. The bundle budgets (issue 13) are checked on them,
 * from the bundles a real `cdk synth` built (test/cdk/cdk-synth-cli.test.ts).
 */
export const BUNDLE_OUTPUTS_FILE = 'bundle-outputs.json';

/** The metafile outputs of each handler module in a directory `bundleAllFunctions` wrote (or its cache entry). */
export function readBundleOutputs(dir: string): Map<string, Metafile['outputs']> {
  return new Map(Object.entries(JSON.parse(readFileSync(join(dir, BUNDLE_OUTPUTS_FILE), 'utf8')) as Record<string, Metafile['outputs']>));
}

/**
 * The size of an output of `esbuildOptions()` as built without a source map: the same code, without the
 * `//# sourceMappingURL=<file>.map` line esbuild appends (chunk names differ, their hashes cover the line, but not
 * their lengths). Checked against a build without source maps for every function when this was written (P369).
 */
export function bytesWithoutSourceMap(path: string, bytes: number): number {
  return bytes - Buffer.byteLength(`//# sourceMappingURL=${basename(path)}.map\n`);
}

/**
 * Where `bundleAllFunctions` keeps the last bundles it built (P340): `HIS_BUNDLE_CACHE` names another directory,
 * or `off` for none; by default node_modules/.cache/his-bundles, which `npm ci` (hence `.ci/run`) deletes.
 */
export function bundleCache(env: NodeJS.ProcessEnv = process.env): BuildCache | undefined {
  const configured = env.HIS_BUNDLE_CACHE;
  if (configured === 'off') return undefined;
  return {
    dir: configured || join(projectRoot, 'node_modules', '.cache', 'his-bundles'),
    // What decides the bundles besides the files they are made from: these options and plugins, the lockfile.
    definition: [
      'lib/function-bundle.ts',
      'lib/bundle-substitutions.ts',
      'lib/project-paths.ts',
      'scripts/bundle-function.ts',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
    ],
    folders: ['functions', 'shared', 'lib'],
    salt: `esbuild ${esbuildVersion} ${allHandlerModules().sort().join(',')}`,
  };
}

/**
 * Bundles every handler module under `functions/` into `outdir/<handler module>`, esbuild's builds side by side
 * in this one process (P334), and their metafiles' outputs into `outdir/bundle-outputs.json`. With a cache (P340,
 * lib/build-cache.ts), the bundles are content-keyed: when no file the last build read has changed (nor the
 * bundling definition, nor the names of the source files), its bundles are copied instead of built again;
 * otherwise they are built and become the cache's entry. Says which.
 */
export async function bundleAllFunctions(outdir: string, cache = bundleCache()): Promise<'built' | 'cached'> {
  const modules = allHandlerModules();
  const entry = cache && cachedBuild(cache);
  if (entry) {
    for (const module of [...modules, BUNDLE_OUTPUTS_FILE]) cpSync(join(entry, module), join(outdir, module), { recursive: true });
    return 'cached';
  }
  const built = await Promise.all(modules.map((module) => bundleFunction(module, join(outdir, module))));
  const outputs = Object.fromEntries(modules.map((module, i) => [module, built[i].outputs]));
  writeFileSync(join(outdir, BUNDLE_OUTPUTS_FILE), JSON.stringify(outputs));
  if (cache) storeBuild(cache, outdir, built.map((b) => b.inputs).flat());
  return 'built';
}
