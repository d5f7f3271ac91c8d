/**
 * What the bundles get instead of `semver` (an esbuild alias in lib/function-bundle.ts): the X-Ray SDK that
 * Powertools Tracer loads requires it only to check the version of AWS SDK v2 before patching it, which this
 * service never does (it uses SDK v3 and does not capture clients). 29 kB less in every traced bundle.
 */
export function gte(): boolean {
  throw new Error('semver is not bundled: only the X-Ray SDK v2 patcher would call it, and it is not used');
}
