/**
 * Synthesizes the service app the way `cdk synth` does (cdk.json's context, cdk-nag attached) into a
 * temporary cloud assembly (or into `outdir`), and gives the template plus helpers to read it. The stacks
 * most files read are synthesized once per run instead (`sharedSynth`, test/cdk/template.ts, P296); this
 * module loads aws-cdk-lib, so a file that needs neither `synthStack` nor `withApp` imports template.ts only.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServiceApp } from '../../lib/service-app.js';
import { projectRoot } from '../../lib/project-paths.js';
import type { ServiceStackProps } from '../../lib/service-stack.js';
import type { Synthesized, TemplateJson } from './template.js';

export {
  NO_BUNDLING,
  actionsOf,
  functionStatements,
  resourcePaths,
  resourcesOfType,
  sharedSynth,
  type Resources,
  type Synthesized,
  type TemplateJson,
} from './template.js';

export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')).context;
}

export function synthStack(
  context: Record<string, unknown> = {},
  stackProps: Partial<Omit<ServiceStackProps, 'stage'>> = {},
  into?: string,
): Synthesized {
  const outdir = into ?? mkdtempSync(join(tmpdir(), 'his-cdk-'));
  const cleanup = () => rmSync(outdir, { recursive: true, force: true });
  try {
    const { app, stack } = createServiceApp({ outdir, context: { ...cdkJsonContext(), ...context } }, stackProps);
    const assembly = app.synth();
    const template = assembly.getStackArtifact(stack.artifactId).template as TemplateJson;
    return { template, assembly, stackName: stack.stackName, cleanup };
  } catch (error) {
    cleanup();
    throw error;
  }
}

/** Runs `use` with an app built in a scratch output directory (an App makes one even when synthesis never happens). */
export function withApp<T>(
  context: Record<string, unknown>,
  stackProps: Partial<Omit<ServiceStackProps, 'stage'>>,
  use: (built: ReturnType<typeof createServiceApp>) => T,
): T {
  const outdir = mkdtempSync(join(tmpdir(), 'his-cdk-'));
  try {
    return use(createServiceApp({ outdir, context: { ...cdkJsonContext(), ...context } }, stackProps));
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}
