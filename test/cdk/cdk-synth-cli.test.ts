/**
 * The real CLI, offline: `cdk synth` through cdk.json's app command with no AWS credentials, no AWS
 * configuration and no instance metadata to fall back on. It must bundle with the local esbuild, need no
 * context lookups, and pass cdk-nag (an unacknowledged error makes the CLI fail).
 *
 * Both synths share a bundle cache that starts empty (P340): the first builds every function with esbuild (most of
 * a synthesis' CPU), the second finds nothing they are made from changed and reuses them, as a second synthesis of
 * an unchanged tree does on a developer's machine; its bundles are byte for byte the first's (same asset hashes).
 * The bundle budgets of issue 13 are checked on what the first built (test/cdk/bundle-budgets.ts, P369): the
 * sizes of the bundles that deploy, from the metafiles recorded beside them, not of a second build.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { cachedBuild } from '../../lib/build-cache.js';
import { bundleCache, readBundleOutputs } from '../../lib/function-bundle.js';
import { projectRoot } from '../../lib/project-paths.js';
import { bundlesOf, describeBundleBudgets, type Bundle } from './bundle-budgets.js';
import { backgroundFunctions } from '#delivery/background-functions.js';
import { allRoutes as routes } from '#http/routes.js';

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: projectRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

let home: string;
let outdir: string;
let env: NodeJS.ProcessEnv;
/** Each of the service's functions' asset directory in the first synthesis, by its description (`Id: ...`). */
const firstAssets = new Map<string, string>();
/** The first synthesis' bundles, by function id, as `bundleAllFunctions` recorded them in the cache. */
let firstBundles = new Map<string, Bundle>();

const functionAssets = (template: any): [string, string][] =>
  Object.values<any>(template.Resources)
    .filter((r) => r.Type === 'AWS::Lambda::Function' && r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME)
    .map((r) => [String(r.Properties.Description), r.Metadata['aws:asset:path']]);
const cli = join(projectRoot, 'node_modules', 'aws-cdk', 'bin', 'cdk');

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'his-cdk-home-'));
  outdir = mkdtempSync(join(tmpdir(), 'his-cdk-cli-'));
  env = {
    // Only what a shell needs to find node and the project's binaries; no AWS_* or CDK_DEFAULT_* from the parent.
    PATH: process.env.PATH,
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    CI: 'true',
    // A cache of its own, empty: the first synthesis must bundle.
    HIS_BUNDLE_CACHE: join(home, 'bundle-cache'),
    // Without CloudFormation's rules, which every synthesis runs by default (P374): the shared synthesis of the CDK
    // tests (test/cdk/synth-all.ts) checks these two templates against them in every run, from the same app and
    // context, and their engine (WebAssembly) costs each synthesis here about 9 s of CPU.
    CDK_VALIDATION: 'false',
  };
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(outdir, { recursive: true, force: true });
});

test('`cdk synth` succeeds offline without credentials, lookups or unacknowledged cdk-nag findings', async () => {
  const result = await run(process.execPath, [cli, 'synth', '--quiet', '--no-notices', '--output', outdir, '-c', 'stage=dev'], env);
  const output = `${result.stdout}\n${result.stderr}`;
  expect({ code: result.code, output: result.code === 0 ? '' : output }).toEqual({ code: 0, output: '' });

  expect(output).not.toMatch(/AwsSolutions-/);
  expect(output).toMatch(/bundle-function: every function built in/);
  expect(existsSync(join(outdir, 'HiringIntegration-dev.template.json'))).toBe(true);
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8'));
  // Context the app would have had to look up in an AWS account.
  expect(manifest.missing ?? []).toEqual([]);
  const template = JSON.parse(readFileSync(join(outdir, 'HiringIntegration-dev.template.json'), 'utf8'));
  // Every route function, background function and the authorizer were bundled here, as ESM.
  const esmBundles = Object.values<any>(template.Resources).filter(
    (r) =>
      r.Type === 'AWS::Lambda::Function' &&
      r.Metadata?.['aws:asset:path'] &&
      existsSync(join(outdir, r.Metadata['aws:asset:path'], 'index.mjs')),
  );
  expect(esmBundles).toHaveLength(routes.length + backgroundFunctions.length + 1);
  // Each its own bundle (every function has its own handler module): CDK caches a bundled asset by its options,
  // so a bundling step that did not name the function would hand every function the first one's bundle.
  expect(new Set(esmBundles.map((r) => r.Metadata['aws:asset:path'])).size).toBe(esmBundles.length);
  for (const [description, asset] of functionAssets(template)) firstAssets.set(description, asset);
  const cached = cachedBuild(bundleCache({ HIS_BUNDLE_CACHE: env.HIS_BUNDLE_CACHE })!);
  expect(cached).toBeDefined();
  firstBundles = bundlesOf(readBundleOutputs(cached!));

  // A bundle is an ESM module, with its source map beside it, that runs on Node without the runtime providing
  // anything: the authorizer denies a request without a key.
  const authorizer = Object.values<any>(template.Resources).find((r) => r.Type === 'AWS::ApiGateway::Authorizer');
  const authorizerId = /"Fn::GetAtt":\["(\w+)","Arn"\]/.exec(JSON.stringify(authorizer.Properties.AuthorizerUri))![1];
  const authorizerBundle = join(outdir, template.Resources[authorizerId].Metadata['aws:asset:path'], 'index.mjs');
  expect(existsSync(`${authorizerBundle}.map`)).toBe(true);
  const decide = [
    'const { handler } = await import(process.argv[1]);',
    "try { await handler({ type: 'REQUEST', headers: {}, methodArn: 'arn:aws:execute-api:eu-west-1:1:api/dev/GET/jobs' }); console.log('allowed'); }",
    "catch (error) { console.log('denied:' + error.message); }",
  ].join(' ');
  const decided = await run(process.execPath, ['--input-type=module', '-e', decide, authorizerBundle], {
    PATH: process.env.PATH,
    TABLE_NAME: 'unused',
    LOG_LEVEL: 'SILENT',
    AWS_REGION: 'eu-west-1',
  });
  expect({ stderr: decided.stderr, stdout: decided.stdout.trim() }).toEqual({ stderr: '', stdout: 'denied:Unauthorized' });

  // The API reference page is a file beside ApiDocs' bundle (P167), and the bundled handler serves it.
  const docs = Object.values<any>(template.Resources).find(
    (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties?.Description ?? '').startsWith('ApiDocs: '),
  );
  const asset = join(outdir, docs.Metadata['aws:asset:path']);
  const page = readFileSync(join(projectRoot, 'docs', 'generated', 'api-reference.html'), 'utf8');
  expect(readFileSync(join(asset, 'api-reference.html'), 'utf8') === page).toBe(true);
  const invoke = [
    'const { handler } = await import(process.argv[1]);',
    "const r = await handler({ requestContext: { requestId: 'synth' } });",
    'process.stdout.write(`\n${JSON.stringify({ status: r.statusCode, type: r.headers["Content-Type"], bytes: Buffer.byteLength(r.body) })}`);',
  ].join(' ');
  const served = await run(process.execPath, ['--input-type=module', '-e', invoke, join(asset, 'index.mjs')], {
    ...env,
    LOG_LEVEL: 'ERROR',
  });
  expect(JSON.parse(served.stdout.trim().split('\n').pop()!)).toEqual({
    status: 200,
    type: 'text/html; charset=utf-8',
    bytes: Buffer.byteLength(page),
  });
  // No other function carries the page.
  const copies = Object.values<any>(template.Resources).filter(
    (r) => r.Metadata?.['aws:asset:path'] && existsSync(join(outdir, r.Metadata['aws:asset:path'], 'api-reference.html')),
  );
  expect(copies).toHaveLength(1);
}, 300_000);

test('`cdk synth -c largeBodies=true` too: the container image is staged for a deploy-time build, no Docker needed', async () => {
  const largeOut = mkdtempSync(join(tmpdir(), 'his-cdk-cli-large-'));
  try {
    // A PATH without any docker: synthesis must not call it.
    const path = (env.PATH ?? '').split(delimiter).filter((dir) => dir && !existsSync(join(dir, 'docker')));
    const result = await run(
      process.execPath,
      [cli, 'synth', '--quiet', '--no-notices', '--output', largeOut, '-c', 'stage=dev', '-c', 'largeBodies=true'],
      { ...env, PATH: path.join(delimiter) },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect({ code: result.code, output: result.code === 0 ? '' : output }).toEqual({ code: 0, output: '' });
    expect(output).not.toMatch(/AwsSolutions-/);
    // The bundles of the first synthesis, from the cache: the same output, hence the same asset hashes.
    expect(output).toMatch(/bundle-function: every function cached in/);
    const template = JSON.parse(readFileSync(join(largeOut, 'HiringIntegration-dev.template.json'), 'utf8'));
    const assets = functionAssets(template);
    expect(assets.length).toBeGreaterThan(backgroundFunctions.length);
    expect(assets.filter(([description, asset]) => firstAssets.get(description) !== asset)).toEqual([]);
    const manifest = JSON.parse(readFileSync(join(largeOut, 'manifest.json'), 'utf8'));
    expect(manifest.missing ?? []).toEqual([]);
    const staged = JSON.parse(readFileSync(join(largeOut, 'HiringIntegration-dev.assets.json'), 'utf8'));
    const images = Object.values<any>(staged.dockerImages ?? {});
    expect(images).toHaveLength(1);
    expect(existsSync(join(largeOut, images[0].source.directory, 'Dockerfile'))).toBe(true);
  } finally {
    rmSync(largeOut, { recursive: true, force: true });
  }
}, 300_000);

describe("the first synthesis' bundles stay within their budgets (issue 13)", () => {
  describeBundleBudgets(() => firstBundles);
});
