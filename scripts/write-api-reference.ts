/**
 * `npm run api-reference` (also run by `npm run openapi`): renders docs/generated/openapi.json into the API
 * reference page with `@redocly/cli build-docs --inlineBundle` (Redoc's script inlined, no CDN), offline, and
 * writes it to docs/generated/api-reference.html, which `GET /docs` serves, and the SHA-256 hashes of its
 * inline scripts (for the page's Content-Security-Policy) to shared/generated/http-api-reference.ts. A test
 * keeps both current.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../lib/project-paths.js';
import { API_REFERENCE_MODULE_FILE, API_REFERENCE_PAGE_FILE, renderApiReference } from './api-reference.js';

const { page, module } = renderApiReference();
for (const [path, content] of [
  [API_REFERENCE_PAGE_FILE, page],
  [API_REFERENCE_MODULE_FILE, module],
]) {
  const target = join(projectRoot, path);
  writeFileSync(target, content);
  console.log(`wrote ${target}`);
}
