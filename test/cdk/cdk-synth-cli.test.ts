/**
 * The real CLI, offline: `cdk synth` through cdk.json's app command with no AWS credentials, no AWS
 * configuration and no instance metadata to fall back on. It must bundle with the local esbuild, need no
 * context lookups, and pass cdk-nag (an unacknowledged error makes the CLI fail).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../lib/project-paths.js';
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

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), 'his-cdk-home-'));
  outdir = mkdtempSync(join(tmpdir(), 'his-cdk-cli-'));
});

afterAll(() => {
  rmSync(home, { recursive: true, force: true });
  rmSync(outdir, { recursive: true, force: true });
});

test('`cdk synth` succeeds offline without credentials, lookups or unacknowledged cdk-nag findings', async () => {
  const env: NodeJS.ProcessEnv = {
    // Only what a shell needs to find node and the project's binaries; no AWS_* or CDK_DEFAULT_* from the parent.
    PATH: process.env.PATH,
    HOME: home,
    AWS_CONFIG_FILE: join(home, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(home, 'no-aws-credentials'),
    AWS_EC2_METADATA_DISABLED: 'true',
    CDK_DISABLE_VERSION_CHECK: 'true',
    CDK_DISABLE_CLI_TELEMETRY: 'true',
    CI: 'true',
  };
  const cli = join(projectRoot, 'node_modules', 'aws-cdk', 'bin', 'cdk');
  const result = await run(process.execPath, [cli, 'synth', '--quiet', '--no-notices', '--output', outdir, '-c', 'stage=dev'], env);
  const output = `${result.stdout}\n${result.stderr}`;
  expect({ code: result.code, output: result.code === 0 ? '' : output }).toEqual({ code: 0, output: '' });

  expect(output).not.toMatch(/AwsSolutions-/);
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
}, 300_000);
