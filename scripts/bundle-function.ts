/**
 * `node --import tsx scripts/bundle-function.ts <handler module> <outdir>`: bundles one function the way
 * `lib/function-bundle.ts` defines. `ServiceFunction` runs it as CDK's local bundling step: the bundles are
 * built through esbuild's JavaScript API, whose plugins (`lib/bundle-substitutions.ts`) the command line CDK's
 * NodejsFunction runs does not have, and CDK's bundling hook is synchronous, so the build runs in a process of
 * its own.
 *
 * `--all <outdir>` bundles every handler module under `functions/` into `<outdir>/<handler module>`, at once in
 * this one process (P334): `ServiceFunction` does that on a synthesis' first bundling, and copies each
 * function's bundle from there, instead of starting a process per function. The bundles come from the
 * content-keyed cache when no file they are made from has changed (P340; `HIS_BUNDLE_CACHE`, lib/function-bundle.ts),
 * and a line on stderr says whether they were built or reused.
 */
import { bundleAllFunctions, bundleCache, bundleFunction } from '../lib/function-bundle.js';

const [handlerModule, outdir] = process.argv.slice(2);
if (!handlerModule || !outdir) {
  console.error('usage: bundle-function.ts <handler module>|--all <outdir>');
  process.exit(2);
}
if (handlerModule === '--all') {
  const started = performance.now();
  const how = await bundleAllFunctions(outdir);
  const cache = bundleCache()?.dir ?? 'off';
  console.error(`bundle-function: every function ${how} in ${Math.round(performance.now() - started)} ms (cache: ${cache})`);
} else await bundleFunction(handlerModule, outdir);
