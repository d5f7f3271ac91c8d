/**
 * `npm run api-reference` (also run by `npm run openapi`): renders docs/openapi.json into the API reference
 * page with `@redocly/cli build-docs --inlineBundle` (Redoc's script inlined, no CDN), offline, and writes it
 * to shared/http/api-reference.generated.html, which `GET /docs` serves, and the SHA-256 hashes of its inline
 * scripts (for the page's Content-Security-Policy) to shared/http/api-reference.generated.ts. A test keeps
 * both current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { API_REFERENCE_MODULE_FILE, API_REFERENCE_PAGE_FILE, renderApiReference } from './api-reference.js';

const { page, module } = renderApiReference();
for (const [name, content] of [
  [API_REFERENCE_PAGE_FILE, page],
  [API_REFERENCE_MODULE_FILE, module],
]) {
  const target = fileURLToPath(new URL(`../shared/http/${name}`, import.meta.url));
  writeFileSync(target, content);
  console.log(`wrote ${target}`);
}
