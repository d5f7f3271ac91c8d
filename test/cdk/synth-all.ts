/**
 * Synthesizes every shared stack of `sharedStacks` (test/cdk/template.ts) in this one process, each into its
 * own cloud assembly under the directory given as the argument, then marks the directory complete (P296). The
 * CDK test files read those assemblies instead of each loading aws-cdk-lib and synthesizing in its own Jest
 * module registry. Run by `sharedSynth()`, not by hand:
 *
 *   node --import tsx test/cdk/synth-all.ts <directory>
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedStackProps, sharedStacks } from './template.js';
import { synthStack } from './synth-stack.js';

// CloudFormation's rules check every shared stack, whatever the environment says: the real `cdk synth` of
// cdk-synth-cli.test.ts skips them for the two templates it makes, which these include (P374).
delete process.env.CDK_VALIDATION;
const directory = process.argv[2];
if (!directory) throw new Error('usage: synth-all.ts <directory>');
const started = performance.now();
for (const [name, context] of Object.entries(sharedStacks)) {
  const synthesized = synthStack(context, sharedStackProps[name as keyof typeof sharedStacks] ?? {}, join(directory, name));
  writeFileSync(join(directory, name, 'shared-synth.json'), JSON.stringify({ stackName: synthesized.stackName }));
}
process.stdout.write(`${JSON.stringify({ synths: Object.keys(sharedStacks).length, ms: Math.round(performance.now() - started) })}\n`);
