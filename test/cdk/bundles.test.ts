/**
 * The bundle budgets of issue 13, on the real esbuild output: every function is bundled once with the
 * options CDK uses (`esbuildOptions()` from lib/function-bundle.ts, without source maps, not written to
 * disk), and its size and esbuild's metafile (which modules went in) are checked. Sizes are deterministic
 * for a given lockfile, so this is not a timed test.
 */
import { build, type Metafile } from 'esbuild';
import { BUDGETS, TRACED_FUNCTIONS, functionBudgets, moduleOfInput, type FunctionBudget } from '../../lib/function-budgets.js';
import { functionEntry } from '../../lib/project-paths.js';
import { esbuildOptions } from '../../lib/function-bundle.js';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { allRoutes as routes } from '#http/routes.js';

interface Bundle {
  budget: FunctionBudget;
  bytes: number;
  modules: Set<string>;
  /** Bytes each input file contributes to the output. */
  inputs: Map<string, number>;
}

const budgets = functionBudgets();
const bundles = new Map<string, Bundle>();

beforeAll(async () => {
  const built = await Promise.all(
    budgets.map(async (budget) => {
      const result = await build({
        ...esbuildOptions(functionEntry(budget.handlerModule), { outdir: '/bundle-test', sourcemap: false }),
        write: false,
        metafile: true,
      });
      const [output] = Object.values((result.metafile as Metafile).outputs);
      const modules = new Set(Object.keys(output.inputs).map(moduleOfInput));
      const inputs = new Map(Object.entries(output.inputs).map(([path, input]) => [path, input.bytesInOutput]));
      return { budget, bytes: result.outputFiles![0].contents.length, modules, inputs };
    }),
  );
  for (const bundle of built) bundles.set(bundle.budget.id, bundle);
});

test('every function of the stack has a budget', () => {
  expect(budgets.map((b) => b.handlerModule).sort()).toEqual(
    ['authorizer', ...routes.map((r) => r.handler), ...backgroundFunctions.map((f) => f.handler)].sort(),
  );
  expect(budgets.find((b) => b.id === 'Authorizer')?.maxBytes).toBe(BUDGETS.authorizer.maxBytes);
  expect(budgets.filter((b) => b.kind === 'read').map((b) => b.id)).toEqual(routes.filter((r) => r.method === 'GET').map((r) => r.id));
});

test.each(budgets.map((b) => [b.id, b] as const))('%s stays within its size budget (minified, no source map)', (id, budget) => {
  const { bytes } = bundles.get(id)!;
  const ceiling = budget.exception?.maxBytes ?? budget.maxBytes;
  expect({ id, kB: bytes / 1000, ceiling: ceiling / 1000, within: bytes <= ceiling }).toEqual({
    id,
    kB: bytes / 1000,
    ceiling: ceiling / 1000,
    within: true,
  });
});

test('an exception is only where the target is missed, and says why', () => {
  for (const budget of budgets.filter((b) => b.exception)) {
    expect(bundles.get(budget.id)!.bytes).toBeGreaterThan(budget.maxBytes);
    expect(budget.exception!.reason.length).toBeGreaterThan(20);
  }
});

test.each(budgets.map((b) => [b.id, b] as const))('%s bundles none of its forbidden modules', (id, budget) => {
  const { modules } = bundles.get(id)!;
  expect(budget.forbidden.filter((name) => modules.has(name))).toEqual([]);
});

test('the forbidden lists name real modules: the create route bundles what the others may not', () => {
  const create = bundles.get('CreateApplication')!.modules;
  for (const name of ['@aws-lambda-powertools/idempotency', 'busboy', 'qs', 'shared/generated/applications-validators.ts']) {
    expect(create.has(name)).toBe(true);
  }
  expect(bundles.get('UpdateCompany')!.modules.has('shared/generated/companies-validators.ts')).toBe(true);
  expect(bundles.get('SyncWorker')!.modules.has('@aws-sdk/client-sesv2')).toBe(true);
  expect(bundles.get('SyncWorker')!.modules.has('nodemailer')).toBe(true);
  expect(bundles.get('ExternalApplyReminder')!.modules.has('nodemailer')).toBe(true);
});

test('every bundle with an AWS SDK client takes its credentials from the environment only (P137)', () => {
  for (const [id, { modules }] of bundles) {
    // ApiDocs serves a page and has no SDK client at all.
    if (![...modules].some((m) => m.includes('@aws-sdk/client-'))) continue;
    expect({ id, lambdaCredentials: modules.has('shared/platform/lambda-credentials.ts') }).toEqual({ id, lambdaCredentials: true });
  }
});

test("the SDK's schema modules are tree-shaken: only the shapes of the commands used are bundled (P135)", () => {
  // Unpatched, a client's whole schema module goes in (S3 68 kB, SESv2 50 kB): `npm ci` runs
  // scripts/sdk-literal-trait-keys.mjs, which makes esbuild able to drop the unused shapes.
  const large: string[] = [];
  for (const [id, { inputs }] of bundles) {
    for (const [path, bytes] of inputs) if (/[\\/]schemas_\d+\.js$/.test(path) && bytes > 20_000) large.push(`${id}: ${path} ${bytes} B`);
  }
  expect(large).toEqual([]);
});

test('the traced functions bundle Powertools Tracer with the semver stub; every route and the three workers bundle Powertools Metrics', () => {
  for (const id of TRACED_FUNCTIONS) {
    const { modules } = bundles.get(id)!;
    expect({ id, tracer: modules.has('@aws-lambda-powertools/tracer'), stub: modules.has('shared/platform/semver-stub.ts') }).toEqual({
      id,
      tracer: true,
      stub: true,
    });
  }
  for (const id of [...routes.map((r) => r.id), 'SyncWorker', 'WebhookWorker', 'JobImportWorker']) {
    expect({ id, metrics: bundles.get(id)!.modules.has('@aws-lambda-powertools/metrics') }).toEqual({ id, metrics: true });
  }
  expect(bundles.get('Authorizer')!.modules.has('@aws-lambda-powertools/metrics')).toBe(false);
});
