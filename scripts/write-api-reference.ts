/**
 * `npm run api-reference` (also run by `npm run openapi`): renders docs/openapi.json into the API reference
 * page with `@redocly/cli build-docs --inlineBundle` (Redoc's script inlined, no CDN), offline, and writes it
 * to docs/api-reference.html, which `GET /docs` serves, and the SHA-256 hashes of its inline
 * scripts (for the page's Content-Security-Policy) to shared/http/api-reference.generated.ts. A test keeps
 * both current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_REFERENCE_MODULE_FILE, API_REFERENCE_PAGE_FILE, renderApiReference } from './api-reference.js';

const { page, module } = renderApiReference();
for (const [path, content] of [
  [`../docs/${API_REFERENCE_PAGE_FILE}`, page],
  [`../shared/http/${API_REFERENCE_MODULE_FILE}`, module],
]) {
  const target = fileURLToPath(new URL(path, import.meta.url));
  writeFileSync(target, content);
  console.log(`wrote ${target}`);
}
