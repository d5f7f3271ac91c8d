/**
 * `npm run api-reference` (also run by `npm run openapi`): renders docs/openapi.json into the API reference
 * page with `@redocly/cli build-docs --inlineBundle` (Redoc's script inlined, no CDN), offline, and writes it
 * with the SHA-256 hashes of its inline scripts (for the page's Content-Security-Policy) to
 * shared/http/api-reference.generated.ts, which `GET /docs` serves. A test keeps it current.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderApiReference } from './api-reference.js';

const target = fileURLToPath(new URL('../shared/http/api-reference.generated.ts', import.meta.url));
writeFileSync(target, renderApiReference());
console.log(`wrote ${target}`);
