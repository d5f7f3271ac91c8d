/**
 * `node --import tsx scripts/bundle-function.ts <handler module> <outdir>`: bundles one function the way
 * `lib/function-bundle.ts` defines. `ServiceFunction` runs it as CDK's local bundling step: the bundles are
 * built through esbuild's JavaScript API, whose plugins (`lib/bundle-substitutions.ts`) the command line CDK's
 * NodejsFunction runs does not have, and CDK's bundling hook is synchronous, so the build runs in a process of
 * its own.
 */
import { bundleFunction } from '../lib/function-bundle.js';

const [handlerModule, outdir] = process.argv.slice(2);
if (!handlerModule || !outdir) {
  console.error('usage: bundle-function.ts <handler module> <outdir>');
  process.exit(2);
}
await bundleFunction(handlerModule, outdir);
