// Runs after every `npm ci` / `npm install` (package.json `postinstall`; docs/decisions.md, P135).
//
// The AWS SDK's generated schema modules (`@aws-sdk/*/dist-es/**/schemas/schemas_0.js`) write trait objects
// with computed keys, `{ [_e]: _c, [_hE]: 400 }`. esbuild cannot prove a computed key free of side effects,
// so it keeps every schema of the service, used or not: 50–70 kB per client (aws/aws-sdk-js-v3#7607; the
// upstream fix, smithy-lang/smithy-typescript#1889, writes literal keys and is not released yet). This
// script makes the same change in the installed files: `[_e]:` becomes `"error":` wherever `_e` is one of
// the module's own top-level `const _e = "error";` strings. The objects are identical; esbuild then drops the
// unused schemas. It touches nothing else, is idempotent, and does nothing once the SDK ships literal keys.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';

const root = join(import.meta.dirname, '..', 'node_modules', '@aws-sdk');

/** The entries of a directory, none when it does not exist. */
function list(dir, options) {
  try {
    return readdirSync(dir, options).map(String);
  } catch {
    return [];
  }
}

/** Every `schemas_*.js` under a package's `dist-es` (the ESM build esbuild bundles). */
function schemaModules() {
  return list(root).flatMap((name) =>
    list(join(root, name, 'dist-es'), { recursive: true })
      .filter((entry) => /(^|[\\/])schemas[\\/]schemas_\d+\.js$/.test(entry))
      .map((entry) => join(root, name, 'dist-es', entry)),
  );
}

/** The module with literal trait keys, and how many keys were rewritten. */
function withLiteralKeys(source) {
  const strings = new Map();
  for (const m of source.matchAll(/^const (\w+) = ("[^"\\\r\n]*");$/gm)) strings.set(m[1], m[2]);
  let rewritten = 0;
  const result = source.replace(/([{,]\s*)\[(\w+)\]: /g, (all, before, name) => {
    if (!strings.has(name)) return all;
    rewritten++;
    return `${before}${strings.get(name)}: `;
  });
  return { source: result, rewritten };
}

let files = 0;
let keys = 0;
for (const file of schemaModules()) {
  const { source, rewritten } = withLiteralKeys(readFileSync(file, 'utf8'));
  if (!rewritten) continue;
  writeFileSync(file, source);
  files++;
  keys += rewritten;
}
process.stdout.write(`sdk-literal-trait-keys: ${keys} computed trait keys made literal in ${files} AWS SDK schema modules\n`);
