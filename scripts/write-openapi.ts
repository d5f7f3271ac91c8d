/**
 * `npm run openapi`: writes the generated OpenAPI document to docs/generated/openapi.json (a test keeps it
 * current). JSON has no comments: the folder and .gitattributes mark it as generated.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '#http/openapi.js';

const target = fileURLToPath(new URL('../docs/generated/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(openApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
