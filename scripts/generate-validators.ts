/**
 * `npm run validators`, second step: (re)writes the generated validator modules from the schemas
 * (scripts/validators.ts). The first step (scripts/registry-outputs.ts) has written the ATS list the company
 * schema's `ats` enum reads, in a process of its own, since the schema is built when its module loads.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/project-paths.js';
import { committedValidatorModule, generateValidatorModule, validatorModules } from './validators.js';

for (const module of validatorModules) {
  const text = await generateValidatorModule(module);
  if (text === committedValidatorModule(module)) continue;
  writeFileSync(join(projectRoot, module.file), text);
  console.log(`wrote ${module.file}`);
}
