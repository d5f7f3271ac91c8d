/**
 * `npm run validators`: (re)writes the generated validator modules from the schemas (scripts/validators.ts),
 * and what the connector registry writes: shared/generated/ats-integrations.ts and the README's ATS table
 * (scripts/registry-outputs.ts).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/project-paths.js';
import { committedValidatorModule, generateValidatorModule, validatorModules } from './validators.js';
import { ATS_INTEGRATIONS_FILE, atsIntegrationsModule, committed, readmeWithAtsTable } from './registry-outputs.js';

for (const module of validatorModules) {
  const text = await generateValidatorModule(module);
  if (text === committedValidatorModule(module)) continue;
  writeFileSync(join(projectRoot, module.file), text);
  console.log(`wrote ${module.file}`);
}

for (const [file, text] of [
  [ATS_INTEGRATIONS_FILE, atsIntegrationsModule()],
  ['README.md', readmeWithAtsTable(committed('README.md'))],
] as const) {
  if (text === committed(file)) continue;
  writeFileSync(join(projectRoot, file), text);
  console.log(`wrote ${file}`);
}
