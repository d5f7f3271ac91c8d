/**
 * `npm run openapi`: writes the generated OpenAPI document to docs/generated/openapi.json and the TypeScript
 * client's types made from it to clients/typescript/src/generated/openapi.ts (tests keep both current). JSON
 * has no comments: the folder and .gitattributes mark it as generated.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openApiDocument } from '#http/openapi.js';
import { projectRoot } from '../lib/project-paths.js';
import { CLIENT_TYPES_FILE, renderClientTypes } from './client-types.js';

const document = openApiDocument();
const target = fileURLToPath(new URL('../docs/generated/openapi.json', import.meta.url));
writeFileSync(target, `${JSON.stringify(document, null, 2)}\n`);
console.log(`wrote ${target}`);

const types = join(projectRoot, CLIENT_TYPES_FILE);
writeFileSync(types, await renderClientTypes(document));
console.log(`wrote ${types}`);
