/**
 * Stack traces of a bundle map back to the sources without `--enable-source-maps`: bundled (minified, with
 * its map beside it) as the functions are, an error's stack names the TypeScript file and line.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { projectRoot } from '../../lib/project-paths.js';
import { bundleEntryFile, esbuildOptions } from '../../lib/function-bundle.js';

let outdir: string;
beforeAll(() => (outdir = mkdtempSync(join(tmpdir(), 'his-stack-'))));
afterAll(() => rmSync(outdir, { recursive: true, force: true }));

test('an error in a minified, split bundle is reported with its source position, also from another of its files (P283)', async () => {
  const options = esbuildOptions(join(projectRoot, 'functions', 'unused.ts'), { outdir });
  const source = [
    // Imported dynamically, the mapping module is a chunk of its own (chunks/), and maps the entry's frames.
    "const { sourceStack } = await import('#platform/stack-trace.js');",
    'export function failing(): never {',
    "  throw new Error('boom');",
    '}',
    'try { failing(); } catch (error) { console.log(JSON.stringify({ stack: (error as Error).stack, mapped: sourceStack(error) })); }',
  ].join('\n');
  await build({
    ...options,
    entryPoints: undefined,
    entryNames: 'index',
    stdin: { contents: source, resolveDir: projectRoot, sourcefile: 'functions/failing.ts', loader: 'ts' },
    write: true,
    logLevel: 'error',
  });
  const run = spawnSync(process.execPath, [bundleEntryFile(outdir)], { encoding: 'utf8', env: { PATH: process.env.PATH } });
  const { stack, mapped } = JSON.parse(run.stdout);
  expect(stack).toMatch(/index\.mjs:\d+:\d+/);
  expect(mapped).toMatch(/functions\/failing\.ts:3:\d+/);
});
