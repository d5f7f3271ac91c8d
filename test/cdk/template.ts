/**
 * Reading a synthesized template, without loading aws-cdk-lib: its types, the helpers the CDK test files share,
 * and the shared stacks (P296). Every shared stack is synthesized once for the whole run, all in one child
 * process (test/cdk/synth-all.ts), into a cloud assembly cached under node_modules/.cache/his-synth/<hash>,
 * where the hash covers lib/, functions/, shared/, cdk.json, package-lock.json and these test modules: a
 * test file asks for one by name (`sharedSynth('dev')`) instead of loading aws-cdk-lib and synthesizing in its
 * own Jest module registry. The first worker to ask runs the synthesis under a lock; the others wait for it.
 * A stack built with test-only props (stage-variants' background functions) is one of them too, with its props
 * in `sharedStackProps` (P374): synthesized in a Jest file, it cost that file aws-cdk-lib's modules in its own
 * registry and a start of CloudFormation's rule engine of its own.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { projectRoot } from '../../lib/project-paths.js';
import { pidAlive } from '../../local/admin/context.js';
import type { BackgroundFunctionDefinition } from '#delivery/background-functions.js';

export type Resources = Record<string, { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
export type TemplateJson = { Resources: Resources; Outputs?: Record<string, unknown> };

export interface Synthesized {
  template: TemplateJson;
  /** The cloud assembly's directory (the template, its assets, cdk-nag's validation report). */
  assembly: { directory: string };
  stackName: string;
  cleanup(): void;
}

/** Context that skips esbuild bundling, for tests that only look at the template. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

/** The stacks synthesized once per run, by name, as the context added to cdk.json's (synth-all.ts). */
export const sharedStacks = {
  dev: { ...NO_BUNDLING, stage: 'dev' },
  devLargeBodies: { ...NO_BUNDLING, stage: 'dev', largeBodies: 'true' },
  prodWaf: { ...NO_BUNDLING, stage: 'prod', waf: 'true' },
  // Context values for the ATS hosts (issue 9): set ones reach the functions that call ATSs.
  prodAtsHosts: {
    ...NO_BUNDLING,
    stage: 'prod',
    leverApiUrl: 'https://api.eu.lever.co',
    personioFeedUrl: 'https://{subdomain}.jobs.personio.example/xml',
  },
  // The background-function list of a test instead of the service's (stage-variants.test.ts): the wiring each
  // kind of trigger gets.
  devTestBackgroundFunctions: { ...NO_BUNDLING, stage: 'dev' },
} satisfies Record<string, Record<string, unknown>>;

/** Two background functions of a test, one of each trigger kind: only the wiring is under test. */
export const TEST_BACKGROUND_FUNCTIONS = {
  worker: {
    id: 'SyncWorker',
    handler: 'jobs/get', // any existing module
    description: 'test worker',
    trigger: { kind: 'syncQueue', batchSize: 5 },
    access: { table: 'write', events: 'publish', attachments: 'read' },
    timeoutSeconds: 30,
  },
  sweeper: {
    id: 'SyncSweeper',
    handler: 'jobs/get',
    description: 'test sweeper',
    trigger: { kind: 'schedule', expression: 'rate(5 minutes)' },
    access: { table: 'read', syncQueue: 'send' },
  },
} satisfies Record<string, BackgroundFunctionDefinition>;

/** A shared stack's props beside its stage (synth-all.ts passes them to `synthStack`). */
export const sharedStackProps: Partial<Record<keyof typeof sharedStacks, { backgroundFunctions: BackgroundFunctionDefinition[] }>> = {
  devTestBackgroundFunctions: { backgroundFunctions: [TEST_BACKGROUND_FUNCTIONS.worker, TEST_BACKGROUND_FUNCTIONS.sweeper] },
};

const cacheRoot = join(projectRoot, 'node_modules', '.cache', 'his-synth');
const hashedInputs = [
  'lib',
  'functions',
  'shared',
  'cdk.json',
  'package-lock.json',
  'test/cdk/template.ts',
  'test/cdk/synth-stack.ts',
  'test/cdk/synth-all.ts',
];

function filesUnder(path: string): string[] {
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .sort()
    .flatMap((entry) => filesUnder(join(path, entry)));
}

/** A hash of everything a synthesized template depends on: another hash is another cache entry. */
function sourceHash(): string {
  const hash = createHash('sha256');
  for (const file of hashedInputs.flatMap((input) => filesUnder(join(projectRoot, input)))) {
    hash.update(relative(projectRoot, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex').slice(0, 20);
}

function synthesizeAll(scratch: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', join(projectRoot, 'test', 'cdk', 'synth-all.ts'), scratch],
      { cwd: projectRoot, env: { ...process.env, NODE_OPTIONS: '' }, maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => (error ? reject(new Error(`test/cdk/synth-all.ts failed: ${stderr || error.message}`)) : resolve()),
    );
  });
}

/**
 * The time a `beforeAll` may wait for `sharedSynth`: the first one waits for all four stacks, which took up to
 * 390 s on two cores at a load average of 40 (the run's 180 s test timeout is a guard against a hang, P246).
 */
export const SHARED_SYNTH_TIMEOUT_MS = 600_000;

let ready: Promise<string> | undefined;

/** The directory holding every shared stack's assembly, synthesized first if no worker has yet. */
function sharedAssemblies(): Promise<string> {
  ready ??= (async () => {
    const directory = join(cacheRoot, sourceHash());
    const lock = `${directory}.lock`;
    for (;;) {
      if (existsSync(join(directory, 'complete'))) return directory;
      mkdirSync(cacheRoot, { recursive: true });
      try {
        mkdirSync(lock);
      } catch {
        // Another worker synthesizes: wait for it, unless it died holding the lock.
        let owner = 0;
        try {
          owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
        } catch {
          // not written yet
        }
        if (owner && !pidAlive(owner)) rmSync(lock, { recursive: true, force: true });
        await new Promise((r) => setTimeout(r, 250));
        continue;
      }
      try {
        writeFileSync(join(lock, 'pid'), String(process.pid));
        const scratch = `${directory}.${process.pid}.tmp`;
        rmSync(scratch, { recursive: true, force: true });
        mkdirSync(scratch);
        await synthesizeAll(scratch).catch((error: unknown) => {
          rmSync(scratch, { recursive: true, force: true });
          throw error;
        });
        writeFileSync(join(scratch, 'complete'), '');
        // Older sources' assemblies are of no more use.
        for (const entry of readdirSync(cacheRoot)) {
          if (!entry.endsWith('.lock') && !entry.endsWith('.tmp') && entry !== basename(directory))
            rmSync(join(cacheRoot, entry), { recursive: true, force: true });
        }
        renameSync(scratch, directory);
      } finally {
        rmSync(lock, { recursive: true, force: true });
      }
    }
  })();
  return ready;
}

/** A shared stack's template and assembly (read-only: the assembly is the run's, so `cleanup` leaves it). */
export async function sharedSynth(name: keyof typeof sharedStacks): Promise<Synthesized> {
  const directory = join(await sharedAssemblies(), name);
  const { stackName } = JSON.parse(readFileSync(join(directory, 'shared-synth.json'), 'utf8')) as { stackName: string };
  const template = JSON.parse(readFileSync(join(directory, `${stackName}.template.json`), 'utf8')) as TemplateJson;
  return { template, assembly: { directory }, stackName, cleanup: () => undefined };
}

export function resourcesOfType(template: TemplateJson, type: string): [string, any][] {
  return Object.entries(template.Resources).filter(([, r]) => r.Type === type);
}

/** Every path of every API Gateway resource, by logical id, rebuilt from the ParentId chain. */
export function resourcePaths(template: TemplateJson): Map<string, string> {
  const resources = Object.fromEntries(resourcesOfType(template, 'AWS::ApiGateway::Resource'));
  const paths = new Map<string, string>();
  const pathOf = (id: string): string => {
    const parent = resources[id].Properties.ParentId;
    const prefix = parent.Ref ? pathOf(parent.Ref) : '';
    return `${prefix}/${resources[id].Properties.PathPart}`;
  };
  for (const id of Object.keys(resources)) paths.set(id, pathOf(id));
  return paths;
}

/** The statements of every inline policy attached to a function's role. */
export function functionStatements(template: TemplateJson, functionId: string): any[] {
  const roleId = template.Resources[functionId].Properties.Role['Fn::GetAtt'][0];
  return resourcesOfType(template, 'AWS::IAM::Policy')
    .filter(([, policy]) => policy.Properties.Roles.some((role: any) => role.Ref === roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement);
}

export function actionsOf(statements: any[], prefix: string): string[] {
  return [...new Set(statements.flatMap((s) => [s.Action].flat()).filter((a: string) => a.startsWith(prefix)))].sort();
}
