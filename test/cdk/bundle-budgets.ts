/**
 * The bundle budgets of issue 13, on the bundles a real `cdk synth` built (test/cdk/cdk-synth-cli.test.ts declares
 * these tests after its first synthesis, P369): every function's size and esbuild's metafile (which modules went
 * into which output file), as `bundleAllFunctions` recorded it beside the bundles. Sizes are those of the same
 * build without source maps (`bytesWithoutSourceMap`), deterministic for a given lockfile, so this is not a timed
 * test.
 *
 * Bundles are split (P283): a function's size is what its cold start loads, the entry and the chunks it
 * imports statically, not the chunks it imports only dynamically (each ATS connector, loaded on the first call
 * for a company of that ATS). Each connector's chunk has a budget of its own, and no output a function loads
 * for one connector holds another connector's code, so adding a connector grows no other connector's function.
 */
import { build, type Metafile } from 'esbuild';
import {
  BUDGETS,
  CONNECTOR_CHUNK_MAX_BYTES,
  TRACED_FUNCTIONS,
  functionBudgets,
  moduleOfInput,
  type FunctionBudget,
} from '../../lib/function-budgets.js';
import { bytesWithoutSourceMap, esbuildOptions } from '../../lib/function-bundle.js';
import { functionEntry } from '../../lib/project-paths.js';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { connectors } from '#delivery/connectors/registry.js';
import { allRoutes as routes } from '#http/routes.js';

export interface Bundle {
  budget: FunctionBudget;
  /** What a cold start loads: the entry and the chunks it imports statically, transitively. */
  bytes: number;
  /** Every output file of the asset (the entry and every chunk), by its path in the metafile. */
  outputs: Metafile['outputs'];
  /** The output files a cold start loads. */
  cold: Set<string>;
  /** The modules the function can ever load (lazily loaded chunks too): what `forbidden` is checked against. */
  modules: Set<string>;
  /** Bytes each input file contributes to the output (of every file the function can load). */
  inputs: Map<string, number>;
}

const budgets = functionBudgets();
const slugs = connectors.map((c) => c.slug);

/** The connector an input belongs to (its module or one of its `<ats>-*.ts` helpers), not its descriptor. */
function connectorOfInput(path: string): string | undefined {
  const match = /^shared\/delivery\/connectors\/([a-z]+)(-[a-z-]+)?\.ts$/.exec(path);
  return match && slugs.includes(match[1]) && match[2] !== '-descriptor' ? match[1] : undefined;
}

/**
 * The output files `start` loads before it runs: itself and what it imports statically, transitively; with
 * `dynamic`, also what it may import later. (esbuild writes a chunk for every `import()` it sees, also in code it
 * then drops as unused; such a chunk is in no closure, and is never loaded.)
 */
function staticClosure(outputs: Metafile['outputs'], start: string, dynamic = false): Set<string> {
  const seen = new Set<string>();
  const visit = (path: string) => {
    if (seen.has(path) || !outputs[path]) return;
    seen.add(path);
    for (const imported of outputs[path].imports)
      if (imported.kind === 'import-statement' || (dynamic && imported.kind === 'dynamic-import')) visit(imported.path);
  };
  visit(start);
  return seen;
}

const bytesOf = (outputs: Metafile['outputs'], paths: Iterable<string>) =>
  [...paths].reduce((sum, path) => sum + bytesWithoutSourceMap(path, outputs[path].bytes), 0);
const inputsOf = (outputs: Metafile['outputs'], paths: Iterable<string>) => [...paths].flatMap((path) => Object.keys(outputs[path].inputs));

/** Each connector's chunk in a bundle (by slug): the output whose entry point is the connector's module. */
function connectorChunks(outputs: Metafile['outputs']): Map<string, string> {
  const chunks = new Map<string, string>();
  for (const [path, output] of Object.entries(outputs)) {
    const slug = output.entryPoint && connectorOfInput(output.entryPoint);
    if (slug && output.entryPoint === `shared/delivery/connectors/${slug}.ts`) chunks.set(slug, path);
  }
  return chunks;
}

/** The functions that call a connector: the sync, the job import and the connect form's credentials check. */
const CONNECTOR_FUNCTIONS = ['SyncWorker', 'JobImportWorker', 'ConnectSubmit'];

/** Each function's bundle by its budget's id, from the metafile outputs of each handler module (source maps left out). */
export function bundlesOf(outputsByModule: ReadonlyMap<string, Metafile['outputs']>): Map<string, Bundle> {
  const bundles = new Map<string, Bundle>();
  for (const budget of budgets) {
    const built = outputsByModule.get(budget.handlerModule);
    if (!built) throw new Error(`no bundle was built for ${budget.handlerModule}`);
    const outputs = Object.fromEntries(Object.entries(built).filter(([path]) => !path.endsWith('.map')));
    const index = Object.keys(outputs).find((path) => /(^|\/)index\.mjs$/.test(path))!;
    const cold = staticClosure(outputs, index);
    const all = [...staticClosure(outputs, index, true)];
    const modules = new Set(inputsOf(outputs, all).map(moduleOfInput));
    const inputs = new Map(
      all.flatMap((path) => Object.entries(outputs[path].inputs).map(([input, i]) => [input, i.bytesInOutput] as const)),
    );
    bundles.set(budget.id, { budget, bytes: bytesOf(outputs, cold), outputs, cold, modules, inputs });
  }
  return bundles;
}

/** The budget tests, on the bundles `bundlesOfSynth()` gives once the tests before them have built them. */
export function describeBundleBudgets(bundlesOfSynth: () => Map<string, Bundle>) {
  let bundles: Map<string, Bundle>;
  beforeAll(() => {
    bundles = bundlesOfSynth();
    if (bundles.size === 0) throw new Error('no bundles: the synthesis before these tests failed');
  });

  test('a size is that of the same build without source maps: the authorizer built without them measures the same', async () => {
    const { outputs } = (
      await build({ ...esbuildOptions(functionEntry('authorizer'), { outdir: '/sizes', sourcemap: false }), write: false, metafile: true })
    ).metafile as Metafile;
    const index = Object.keys(outputs).find((path) => /(^|\/)index\.mjs$/.test(path))!;
    const cold = [...staticClosure(outputs, index)];
    const plain = cold.reduce((sum, path) => sum + outputs[path].bytes, 0);
    expect(cold.length).toBe(bundles.get('Authorizer')!.cold.size);
    expect(bundles.get('Authorizer')!.bytes).toBe(plain);
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

  test('a cold start loads no connector: every connector is a chunk of its own, imported only dynamically (P283)', () => {
    for (const [id, { outputs, cold }] of bundles) {
      const loaded = inputsOf(outputs, cold).filter((input) => connectorOfInput(input));
      expect({ id, connectorsAtStart: loaded }).toEqual({ id, connectorsAtStart: [] });
    }
    for (const id of CONNECTOR_FUNCTIONS) {
      const chunks = connectorChunks(bundles.get(id)!.outputs);
      expect({ id, chunks: [...chunks.keys()].sort() }).toEqual({ id, chunks: [...slugs].sort() });
    }
  });

  test('what a function loads for one connector holds no other connector, and stays within the chunk budget (P283)', () => {
    for (const id of CONNECTOR_FUNCTIONS) {
      const { outputs, cold } = bundles.get(id)!;
      for (const [slug, chunk] of connectorChunks(outputs)) {
        // Its chunk and the chunks that chunk imports statically, beyond what the cold start loaded already.
        const lazy = [...staticClosure(outputs, chunk)].filter((path) => !cold.has(path));
        const others = [...new Set(inputsOf(outputs, lazy).map(connectorOfInput))].filter((other) => other && other !== slug);
        const bytes = bytesOf(outputs, lazy);
        expect({ id, slug, others, kB: bytes / 1000, within: bytes <= CONNECTOR_CHUNK_MAX_BYTES }).toEqual({
          id,
          slug,
          others: [],
          kB: bytes / 1000,
          within: true,
        });
      }
    }
  });

  /**
   * P288: what only some calls use is imported where it is used, so a cold start does not load it. The modules a
   * function can load (`modules`) still hold them: the test fails if they were dropped instead of deferred.
   */
  test("what only some calls use is not loaded at start: the feed's validator, the KMS client, the presigner (P288)", () => {
    const atStart = (id: string) => new Set(inputsOf(bundles.get(id)!.outputs, bundles.get(id)!.cold).map(moduleOfInput));
    const deferred = (id: string, names: string[]) => ({
      id,
      atStart: names.filter((name) => atStart(id).has(name)),
      loadable: names.filter((name) => bundles.get(id)!.modules.has(name)),
    });
    const jobImport = ['shared/generated/jobs-validators.ts', '@aws-sdk/client-kms'];
    expect(deferred('JobImportWorker', jobImport)).toEqual({ id: 'JobImportWorker', atStart: [], loadable: jobImport });
    // The KMS client: also where credentials are sealed or opened (the sync, the connect form).
    for (const id of ['SyncWorker', 'ConnectSubmit'])
      expect(deferred(id, ['@aws-sdk/client-kms'])).toEqual({ id, atStart: [], loadable: ['@aws-sdk/client-kms'] });
    // The presigner: the sync (Teamtailor fetches files by URL, P277) can load it; no cold start does.
    expect(deferred('SyncWorker', ['@aws-sdk/s3-request-presigner'])).toEqual({
      id: 'SyncWorker',
      atStart: [],
      loadable: ['@aws-sdk/s3-request-presigner'],
    });
    for (const id of bundles.keys())
      expect({ id, presignerAtStart: atStart(id).has('@aws-sdk/s3-request-presigner') }).toEqual({ id, presignerAtStart: false });
  });
}
