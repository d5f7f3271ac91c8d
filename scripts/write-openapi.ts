/** `npm run openapi`: writes the generated OpenAPI document to docs/openapi.json (a test keeps it current). */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '#http/openapi.js';

const target = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
