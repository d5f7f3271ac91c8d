/**
 * The architecture test: dependency-cruiser with the project's rules (.dependency-cruiser.cjs) over the real
 * tree finds nothing, and over small trees that break one rule each it names exactly that rule, so the rules
 * are known to bite. The CLI's entry runs with the options a developer's command line gives it.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { tableDefinition } from '#platform/table.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
}

/**
 * The CLI's own entry (what `bin/dependency-cruiser.mjs` calls with its parsed options), run in this process from
 * `cwd`: the same options, configuration and JSON report as `depcruise --config .dependency-cruiser.cjs
 * --output-type json`, without starting Node and loading TypeScript again for each of the small trees (P334).
 */
const depcruiseCli = pathToFileURL(join(root, 'node_modules', 'dependency-cruiser', 'src', 'cli', 'index.mjs')).href;

async function cruise(cwd: string, paths: string[]): Promise<{ violations: Violation[]; modules: number }> {
  const { default: executeCli } = (await import(depcruiseCli)) as {
    default: (paths: string[], options: Record<string, unknown>, streams: { stdout: Writable; stderr: Writable }) => Promise<number>;
  };
  const report = join(mkdtempSync(join(tmpdir(), 'depcruise-')), 'report.json');
  let stderr = '';
  const streams = { stdout: new PassThrough(), stderr: new Writable({ write: (chunk, _encoding, done) => ((stderr += chunk), done()) }) };
  const before = process.cwd();
  process.chdir(cwd);
  try {
    await executeCli(paths, { config: '.dependency-cruiser.cjs', outputType: 'json', outputTo: report }, streams);
  } finally {
    process.chdir(before);
  }
  if (!existsSync(report)) throw new Error(`depcruise failed: ${stderr}`);
  const result = JSON.parse(readFileSync(report, 'utf8')) as { summary: { violations: Violation[]; totalCruised: number } };
  rmSync(dirname(report), { recursive: true, force: true });
  return { violations: result.summary.violations, modules: result.summary.totalCruised };
}

test('the real tree keeps every architecture rule', async () => {
  const { violations, modules } = await cruise(root, [
    'shared',
    'functions',
    'local',
    'container',
    'lib',
    'bin',
    'scripts',
    'bench',
    'test',
    'clients',
  ]);
  expect(violations.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([]);
  expect(modules).toBeGreaterThan(100);
});

/**
 * Issue 22 item 3, issue 42 item 1 (P290, P291): the modules above the stores call named operations and never
 * name an index attribute (`DUEPK`, `D2SK`, a sync-status slot, …), so a change of the layout stays inside the
 * store modules. Which attributes are index attributes is read from the table definition, and which modules
 * may name them is found, not listed: the platform layer (shared/platform: the table, its keys and the generic
 * queries), by folder, and the entity store modules, which declare themselves with `@entity-store` in their
 * opening comment; every module that declares an entity (`defineEntity`) is one. Every other hand-written module
 * of the service (shared, functions, local, bin, container, lib, clients, scripts, bench) is checked, and the
 * modules that deliver and serve (shared/delivery, shared/http, functions, local, bin, container) name no index
 * either: they read through the stores.
 */
describe('the modules above the stores name no index attribute of the entities', () => {
  const indexAttributes = tableDefinition.globalSecondaryIndexes
    .flatMap((index) => [index.partitionKey, index.sortKey])
    .filter((name): name is string => Boolean(name) && name !== 'PK' && name !== 'SK');
  const pattern = new RegExp(`\\b(${[...new Set(indexAttributes)].join('|')})\\b`);
  const indexNames = new RegExp(`['"\`](${tableDefinition.globalSecondaryIndexes.map((index) => index.name).join('|')})['"\`]`);
  const code = (file: string) =>
    readFileSync(join(root, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
  const folders = ['shared', 'functions', 'local', 'bin', 'container', 'lib', 'clients', 'scripts', 'bench'];
  const platform = (file: string) => file.startsWith('shared/platform/');
  // Generated code and build output (the TypeScript client's dist/, which its own test rebuilds meanwhile) are not hand-written.
  const generated = (file: string) => /(^|\/)(generated|node_modules|dist)\//.test(file);
  const modules = folders.flatMap((folder) =>
    readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' })
      .map((name) => `${folder}/${name}`)
      .filter((file) => /\.(ts|mts|js|mjs)$/.test(file) && !file.endsWith('.d.ts') && !generated(file)),
  );
  const isStore = (file: string) => /^\/\*\*[\s\S]*?@entity-store[\s\S]*?\*\//.test(readFileSync(join(root, file), 'utf8'));
  const declaresEntity = (file: string) => /\bdefineEntity\s*</.test(code(file));
  const checked = modules.filter((file) => !platform(file) && !isStore(file));

  test('the table definition names the index attributes and indexes the check looks for', () => {
    expect(indexAttributes).toEqual(expect.arrayContaining(['DUEPK', 'DUESK', 'D2SK', 'X1PK', 'GSI1SK']));
    expect(pattern.test('REMOVE sync_due_at, DUEPK')).toBe(true);
    expect(pattern.test('SET sync_status = :to')).toBe(false);
    expect(indexNames.test("IndexName: 'DUE'")).toBe(true);
    expect(indexNames.test("status: 'DUE_SOON'")).toBe(false);
  });

  test('the stores are few and declared, and every other module is checked', () => {
    const stores = modules.filter(isStore);
    expect(stores).toEqual(
      expect.arrayContaining([
        'shared/applications/application-store.ts',
        'shared/jobs/job-store.ts',
        'shared/companies/company-layout.ts',
      ]),
    );
    expect(stores.filter((file) => !/^shared\/(applications|companies|jobs)\//.test(file))).toEqual([]);
    // A store declares itself because it names index attributes or declares an entity; a declaration that is
    // not needed is taken back. Every entity is declared in a store.
    for (const store of stores)
      expect({ store, needed: pattern.test(code(store)) || declaresEntity(store) }).toEqual({ store, needed: true });
    expect(modules.filter((file) => declaresEntity(file) && !platform(file) && !isStore(file))).toEqual([]);
    expect(checked).toEqual(
      expect.arrayContaining([
        'shared/delivery/orphans.ts',
        'shared/delivery/webhook-endpoints.ts',
        'shared/delivery/sync.ts',
        'functions/scheduled/sync-sweeper.ts',
        'local/runtime.ts',
        'bin/app.ts',
        'bench/read-once.ts',
      ]),
    );
  });

  test('no other module names an index attribute', () => {
    const offenders = checked.flatMap((file) => {
      const found = code(file).match(pattern)?.[0];
      return found ? [`${file}: ${found}`] : [];
    });
    expect(offenders).toEqual([]);
  });

  test('the modules that deliver and serve name no index either', () => {
    const serving = checked.filter((file) => /^(shared\/(delivery|http)|functions|local|bin|container)\//.test(file));
    expect(serving.length).toBeGreaterThan(40);
    const offenders = serving.flatMap((file) => {
      const found = code(file).match(indexNames)?.[0];
      return found ? [`${file}: ${found}`] : [];
    });
    expect(offenders).toEqual([]);
  });
});

/**
 * Issue 42 item 2 (P292): a filter is one declaration, so the list code names no index of its own. The index
 * names are read from the table definition; a list module (`shared/<entity>/*-list.ts`, found, not listed) may
 * name only the indexes its entity's filter declarations serve from (`serve`), and COLLECTION, every list's
 * unfiltered source. Which modules may declare filters and which parse queries are dependency rules
 * (`filters-are-declared-in-filters-modules`, `list-modules-parse-no-query`, below).
 */
describe('the list modules name no index but the declared ones', () => {
  const indexNames = tableDefinition.globalSecondaryIndexes.map((index) => index.name as string);
  const named = (text: string) => [...text.matchAll(/['"`]([A-Z][A-Z0-9]*)['"`]/g)].map((m) => m[1]).filter((n) => indexNames.includes(n));
  const served = (declarations: readonly { serve: unknown }[]) => new Set(declarations.flatMap((d) => named(JSON.stringify(d.serve))));
  const code = (file: string) =>
    readFileSync(join(root, file), 'utf8')
      .replace(/\/\*[\s\S]*?\*\//g, '')
      .replace(/\/\/.*$/gm, '');
  const lists = ['companies', 'jobs', 'applications'].flatMap((entity) =>
    readdirSync(join(root, 'shared', entity))
      .filter((name) => name.endsWith('-list.ts'))
      .map((name) => [entity, `shared/${entity}/${name}`] as const),
  );

  test('the check finds index names in code, and the declarations name theirs', async () => {
    expect(named(`const q = { index: 'SLIM', other: 'SLIMMER' }; f("LOOKUP")`)).toEqual(['SLIM', 'LOOKUP']);
    const { JOB_FILTER_DECLARATIONS } = await import('#jobs/job-filters.js');
    expect([...served(JOB_FILTER_DECLARATIONS)].sort()).toEqual([
      'APPLIED',
      'COLLECTION',
      'LOOKUP',
      'SLOT1',
      'SLOT2',
      'SLOT3',
      'SLOT4',
      'UPDATED',
    ]);
    expect(lists.map(([, file]) => file).sort()).toEqual([
      'shared/applications/application-list.ts',
      'shared/companies/company-list.ts',
      'shared/jobs/job-list.ts',
    ]);
  });

  test('each list module names only its declared indexes', async () => {
    const declarations = {
      companies: (await import('#companies/company-filters.js')).COMPANY_FILTER_DECLARATIONS,
      jobs: (await import('#jobs/job-filters.js')).JOB_FILTER_DECLARATIONS,
      applications: (await import('#applications/application-filters.js')).APPLICATION_FILTER_DECLARATIONS,
    };
    const offenders = lists.flatMap(([entity, file]) => {
      const allowed = new Set([...served(declarations[entity as keyof typeof declarations]), 'COLLECTION']);
      return named(code(file))
        .filter((name) => !allowed.has(name))
        .map((name) => `${file}: ${name}`);
    });
    expect(offenders).toEqual([]);
  });
});

describe('each rule fails a tree that breaks it', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'arch-'));
    copyFileSync(join(root, '.dependency-cruiser.cjs'), join(dir, '.dependency-cruiser.cjs'));
    copyFileSync(join(root, 'tsconfig.json'), join(dir, 'tsconfig.json'));
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { imports: Record<string, string> };
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module', imports: pkg.imports }));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const write = (files: Record<string, string>) => {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
  };
  const rulesBroken = async () =>
    [
      ...new Set(
        (
          await cruise(
            dir,
            ['shared', 'functions', 'local', 'container', 'lib', 'test', 'clients'].filter((d) => existsSync(join(dir, d))),
          )
        ).violations.map((v) => v.rule.name),
      ),
    ].sort();

  test('a clean layered tree passes', async () => {
    write({
      'shared/platform/clock.ts': 'export const now = () => 1;\n',
      'shared/jobs/jobs.ts': "import { now } from '#platform/clock.js';\nexport const job = now();\n",
      'functions/get.ts': "import { job } from '#jobs/jobs.js';\nexport const handler = () => job;\n",
    });
    expect(await rulesBroken()).toEqual([]);
  });

  test('an upward import, also a type-only one', async () => {
    write({
      'shared/http/routes.ts': 'export interface Route { path: string }\n',
      'shared/platform/clock.ts': "import type { Route } from '#http/routes.js';\nexport type R = Route;\n",
    });
    expect(await rulesBroken()).toEqual(['no-upward-from-platform']);
  });

  test('a domain folder importing a sibling that is not below it', async () => {
    write({
      'shared/applications/applications.ts': 'export const a = 1;\n',
      'shared/jobs/jobs.ts': "import { a } from '#applications/applications.js';\nexport const j = a;\n",
    });
    expect(await rulesBroken()).toEqual(['no-upward-from-jobs']);
  });

  test('a function importing local/', async () => {
    write({
      'local/runtime.ts': 'export const r = 1;\n',
      'functions/get.ts': "import { r } from '../local/runtime.js';\nexport const handler = () => r;\n",
    });
    expect(await rulesBroken()).toEqual(['no-function-imports-local']);
  });

  test('the container importing more of local/ than the HTTP adapter', async () => {
    write({
      'local/http-adapter.ts': 'export const adapter = 1;\n',
      'local/emulators.ts': 'export const emulators = 1;\n',
      'container/ingest.ts':
        "import { adapter } from '../local/http-adapter.js';\nimport { emulators } from '../local/emulators.js';\nexport const c = adapter + emulators;\n",
    });
    expect(await rulesBroken()).toEqual(['container-takes-only-the-adapter']);
  });

  test('the stack (or anything but tests) importing the container', async () => {
    write({
      'container/ingest.ts': 'export const mode = 1;\n',
      'lib/stack.ts': "import { mode } from '../container/ingest.js';\nexport const s = mode;\n",
    });
    expect(await rulesBroken()).toEqual(['nothing-imports-the-container']);
  });

  test('anything importing test/', async () => {
    write({
      'test/helpers/fixtures.ts': 'export const f = 1;\n',
      'local/seed.ts': "import { f } from '../test/helpers/fixtures.js';\nexport const s = f;\n",
    });
    expect(await rulesBroken()).toEqual(['no-imports-of-tests']);
  });

  test('a generated module imported from below the layer it is named for, or importing above shared/platform', async () => {
    write({
      'shared/platform/field-errors.ts': 'export type V = (x: unknown) => boolean;\n',
      'shared/generated/applications-validators.ts':
        "import type { V } from '#platform/field-errors.js';\nexport const loadApplicationInValidator = (): V => () => true;\n",
      'shared/applications/create.ts':
        "import { loadApplicationInValidator } from '#generated/applications-validators.js';\nexport const v = loadApplicationInValidator;\n",
    });
    expect(await rulesBroken()).toEqual([]);
    write({
      'shared/jobs/jobs.ts':
        "import { loadApplicationInValidator } from '#generated/applications-validators.js';\nexport const j = loadApplicationInValidator;\n",
    });
    expect(await rulesBroken()).toEqual(['no-upward-from-jobs']);
    rmSync(join(dir, 'shared/jobs'), { recursive: true });
    write({
      'shared/companies/companies.ts': 'export const schema = {};\n',
      'shared/generated/companies-validators.ts': "import { schema } from '#companies/companies.js';\nexport const s = schema;\n",
    });
    expect(await rulesBroken()).toEqual(['generated-imports-only-platform']);
  });

  test('the TypeScript client importing the service (it is published alone)', async () => {
    write({
      'shared/platform/errors.ts': 'export const codes = [];\n',
      'clients/typescript/src/errors.ts': 'export const own = 1;\n',
      'clients/typescript/src/index.ts': "import { own } from './errors.js';\nexport const i = own;\n",
    });
    expect(await rulesBroken()).toEqual([]);
    write({ 'clients/typescript/src/client.ts': "import { codes } from '../../../shared/platform/errors.js';\nexport const c = codes;\n" });
    expect(await rulesBroken()).toEqual(['client-stands-alone']);
  });

  test('a circular import', async () => {
    write({
      'shared/jobs/a.ts': "import { b } from '#jobs/b.js';\nexport const a = () => b;\n",
      'shared/jobs/b.ts': "import { a } from '#jobs/a.js';\nexport const b = () => a;\n",
    });
    expect(await rulesBroken()).toEqual(['no-circular']);
  });

  test('a module other than the outbox relay importing the SNS client (P115)', async () => {
    write({
      'node_modules/@aws-sdk/client-sns/package.json': JSON.stringify({ name: '@aws-sdk/client-sns', main: 'index.js' }),
      'node_modules/@aws-sdk/client-sns/index.js': 'exports.PublishCommand = class {};\n',
      'shared/delivery/event-relay.ts':
        "import { PublishCommand } from '@aws-sdk/client-sns';\nexport const relay = () => new PublishCommand();\n",
    });
    expect(await rulesBroken()).toEqual([]);
    write({
      'shared/delivery/sync.ts':
        "import { PublishCommand } from '@aws-sdk/client-sns';\nexport const direct = () => new PublishCommand();\n",
    });
    expect(await rulesBroken()).toEqual(['only-the-relay-publishes-events']);
  });

  test('a connector loaded other than by the registry, statically, or from another connector; a descriptor importing code (P283)', async () => {
    const c = 'shared/delivery/connectors';
    write({
      [`${c}/connector.ts`]: 'export interface AtsConnector { slug: string }\n',
      [`${c}/http.ts`]: 'export const atsFetch = () => 1;\n',
      [`${c}/acme-descriptor.ts`]: `import type { AtsConnector } from '#delivery/connectors/connector.js';\nexport const acmeDescriptor: AtsConnector = { slug: 'acme' };\n`,
      [`${c}/acme-jobs.ts`]: "import { atsFetch } from '#delivery/connectors/http.js';\nexport const jobs = atsFetch;\n",
      [`${c}/acme.ts`]:
        "import { jobs } from '#delivery/connectors/acme-jobs.js';\nimport { acmeDescriptor } from '#delivery/connectors/acme-descriptor.js';\nexport const acmeConnector = { ...acmeDescriptor, jobs };\n",
      [`${c}/other.ts`]: 'export const otherConnector = { slug: 1 };\n',
      [`${c}/registry.ts`]:
        "import { acmeDescriptor } from '#delivery/connectors/acme-descriptor.js';\nexport const connectors = [acmeDescriptor];\nexport const load = async () => (await import('#delivery/connectors/acme.js')).acmeConnector;\n",
      'shared/delivery/sync.ts': "import { load } from '#delivery/connectors/registry.js';\nexport const sync = load;\n",
    });
    expect(await rulesBroken()).toEqual([]);
    write({
      'shared/delivery/sync.ts': "import { acmeConnector } from '#delivery/connectors/acme.js';\nexport const sync = acmeConnector;\n",
    });
    expect(await rulesBroken()).toEqual(['only-the-registry-loads-connectors']);
    write({
      'shared/delivery/sync.ts': 'export const sync = 1;\n',
      [`${c}/registry.ts`]: "import { acmeConnector } from '#delivery/connectors/acme.js';\nexport const connectors = [acmeConnector];\n",
    });
    expect(await rulesBroken()).toEqual(['the-registry-loads-connectors-lazily']);
    write({
      [`${c}/registry.ts`]: 'export const connectors = [];\n',
      [`${c}/acme-jobs.ts`]: "import { otherConnector } from '#delivery/connectors/other.js';\nexport const jobs = otherConnector;\n",
    });
    expect(await rulesBroken()).toEqual(['a-connector-imports-no-other']);
    write({
      [`${c}/acme-jobs.ts`]: 'export const jobs = 1;\n',
      [`${c}/acme-descriptor.ts`]:
        "import { atsFetch } from '#delivery/connectors/http.js';\nexport const acmeDescriptor = { slug: 'acme', atsFetch };\n",
    });
    expect(await rulesBroken()).toEqual(['descriptors-import-only-the-interface']);
  });

  test('a filter set built outside a *-filters.ts module, or a list module parsing a query by hand (P292)', async () => {
    write({
      'shared/platform/query-params.ts':
        'export type QueryParams = Record<string, string[]>;\nexport const stringParam = (q: QueryParams, n: string) => q[n]?.[0];\n',
      'shared/platform/filters.ts':
        "import type { QueryParams } from '#platform/query-params.js';\nexport interface FilterDeclaration { name: string }\nexport const filterSet = (d: FilterDeclaration[]) => ({ read: (q: QueryParams) => d.map((x) => q[x.name]) });\n",
      'shared/jobs/job-filters.ts':
        "import { filterSet, type FilterDeclaration } from '#platform/filters.js';\nconst declarations: FilterDeclaration[] = [{ name: 'status' }];\nexport const JOB_FILTER_SET = filterSet(declarations);\n",
      'shared/jobs/job-list.ts':
        "import type { QueryParams } from '#platform/query-params.js';\nimport type { FilterDeclaration } from '#platform/filters.js';\nimport { JOB_FILTER_SET } from '#jobs/job-filters.js';\nexport const list = (q: QueryParams, d?: FilterDeclaration) => [JOB_FILTER_SET.read(q), d];\n",
    });
    expect(await rulesBroken()).toEqual([]);
    write({
      'shared/jobs/job-list.ts':
        "import { filterSet } from '#platform/filters.js';\nimport type { QueryParams } from '#platform/query-params.js';\nexport const list = (q: QueryParams) => filterSet([{ name: 'title' }]).read(q);\n",
    });
    expect(await rulesBroken()).toEqual(['filters-are-declared-in-filters-modules']);
    write({
      'shared/jobs/job-list.ts':
        "import { stringParam, type QueryParams } from '#platform/query-params.js';\nexport const list = (q: QueryParams) => stringParam(q, 'title');\n",
    });
    expect(await rulesBroken()).toEqual(['list-modules-parse-no-query']);
  });

  test('a layer import that resolves nowhere', async () => {
    write({ 'shared/jobs/jobs.ts': "import { x } from '#platform/missing.js';\nexport const j = x;\n" });
    expect(await rulesBroken()).toEqual(['not-to-unresolvable']);
  });
});
