/** `npm run validators`: (re)writes the generated validator modules from the schemas (scripts/validators.ts). */
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
