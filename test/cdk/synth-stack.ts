/**
 * Synthesizes the service app the way `cdk synth` does (cdk.json's context, cdk-nag attached) into a
 * temporary cloud assembly, once per test file, and gives the template plus helpers to read it.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { createServiceApp } from '../../lib/service-app.js';
import { projectRoot } from '../../lib/project-paths.js';
import type { ServiceStackProps } from '../../lib/service-stack.js';

export type Resources = Record<string, { Type: string; Properties?: any; DeletionPolicy?: string; UpdateReplacePolicy?: string }>;
export type TemplateJson = { Resources: Resources; Outputs?: Record<string, unknown> };

export interface Synthesized {
  template: TemplateJson;
  assembly: CloudAssembly;
  stackName: string;
  cleanup(): void;
}

/** Context that skips esbuild bundling, for tests that only look at the template. */
export const NO_BUNDLING = { 'aws:cdk:bundling-stacks': [] };

export function cdkJsonContext(): Record<string, unknown> {
  return JSON.parse(readFileSync(join(projectRoot, 'cdk.json'), 'utf8')).context;
}

export function synthStack(context: Record<string, unknown> = {}, stackProps: Partial<Omit<ServiceStackProps, 'stage'>> = {}): Synthesized {
  const outdir = mkdtempSync(join(tmpdir(), 'his-cdk-'));
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
