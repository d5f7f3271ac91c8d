/**
 * `node --import tsx scripts/bundle-function.ts <handler module> <outdir>`: bundles one function the way
 * `lib/function-bundle.ts` defines. `ServiceFunction` runs it as CDK's local bundling step: the bundles are
 * built through esbuild's JavaScript API, whose plugins (`lib/bundle-substitutions.ts`) the command line CDK's
 * NodejsFunction runs does not have, and CDK's bundling hook is synchronous, so the build runs in a process of
 * its own.
 *
 * `--all <outdir>` bundles every handler module under `functions/` into `<outdir>/<handler module>`, at once in
 * this one process (P334): `ServiceFunction` does that on a synthesis' first bundling, and copies each
 * function's bundle from there, instead of starting a process per function.
 */
import { bundleFunction } from '../lib/function-bundle.js';
import { allHandlerModules } from '../lib/project-paths.js';
import { join } from 'node:path';

const [handlerModule, outdir] = process.argv.slice(2);
if (!handlerModule || !outdir) {
  console.error('usage: bundle-function.ts <handler module>|--all <outdir>');
  process.exit(2);
}
if (handlerModule === '--all') await Promise.all(allHandlerModules().map((module) => bundleFunction(module, join(outdir, module))));
else await bundleFunction(handlerModule, outdir);
