/**
 * The content-keyed build cache (lib/build-cache.ts, P340) that lets a second `cdk synth` reuse the first's
 * function bundles and the tests reuse the admin tool's bundle (P341): an output is reused only while every
 * file it was made from, the build's definition and the names in its source folders are unchanged.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { cachedBuild, storeBuild, type BuildCache } from '../../lib/build-cache.js';
import { projectRoot } from '../../lib/project-paths.js';

let work: string;
let cache: BuildCache;
/** Project-relative paths of the scratch files (the cache hashes project files). */
let input: string;
let definition: string;
let sources: string;

function output(text: string): string {
  const dir = mkdtempSync(join(work, 'out-'));
  mkdirSync(join(dir, 'fn'));
  writeFileSync(join(dir, 'fn', 'index.mjs'), text);
  return dir;
}

beforeEach(() => {
  mkdirSync(join(projectRoot, 'node_modules', '.cache'), { recursive: true });
  work = mkdtempSync(join(projectRoot, 'node_modules', '.cache', 'build-cache-test-'));
  mkdirSync(join(work, 'src'));
  writeFileSync(join(work, 'src', 'input.ts'), 'export const a = 1;');
  writeFileSync(join(work, 'options.json'), '{"minify":true}');
  input = relative(projectRoot, join(work, 'src', 'input.ts'));
  definition = relative(projectRoot, join(work, 'options.json'));
  sources = relative(projectRoot, join(work, 'src'));
  cache = { dir: join(work, 'cache'), definition: [definition], folders: [sources], salt: 'esbuild 1' };
});
afterEach(() => rmSync(work, { recursive: true, force: true }));

test('nothing is cached before a build is stored', () => {
  expect(cachedBuild(cache)).toBeUndefined();
});

test('a stored output is found again while its inputs are unchanged, with its files', () => {
  const entry = storeBuild(cache, output('built once'), [input]);
  expect(cachedBuild(cache)).toBe(entry);
  expect(readFileSync(join(entry, 'fn', 'index.mjs'), 'utf8')).toBe('built once');
});

test('a changed input, definition file, source file name or salt is a miss; the content, not the time, decides', () => {
  storeBuild(cache, output('built once'), [input]);
  const hit = cachedBuild(cache);

  writeFileSync(join(projectRoot, input), 'export const a = 2;');
  expect(cachedBuild(cache)).toBeUndefined();
  // The same content again (a newer modification time): a hit.
  writeFileSync(join(projectRoot, input), 'export const a = 1;');
  expect(cachedBuild(cache)).toBe(hit);

  writeFileSync(join(projectRoot, definition), '{"minify":false}');
  expect(cachedBuild(cache)).toBeUndefined();
  writeFileSync(join(projectRoot, definition), '{"minify":true}');
  expect(cachedBuild(cache)).toBe(hit);

  // A file added beside the sources could change what an import resolves to.
  writeFileSync(join(projectRoot, sources, 'input.js'), '');
  expect(cachedBuild(cache)).toBeUndefined();
  rmSync(join(projectRoot, sources, 'input.js'));
  expect(cachedBuild(cache)).toBe(hit);

  expect(cachedBuild({ ...cache, salt: 'esbuild 2' })).toBeUndefined();
});

test('a deleted input is a miss; an input in a plugin namespace is keyed by its name', () => {
  storeBuild(cache, output('built once'), [input, 'substitute:semver']);
  expect(cachedBuild(cache)).toBeDefined();
  rmSync(join(projectRoot, input));
  expect(cachedBuild(cache)).toBeUndefined();
});

test('the newest build is the only entry kept', () => {
  const first = storeBuild(cache, output('first'), [input]);
  writeFileSync(join(projectRoot, input), 'export const a = 2;');
  const second = storeBuild(cache, output('second'), [input]);
  expect(second).not.toBe(first);
  expect(existsSync(first)).toBe(false);
  expect(readdirSync(cache.dir).sort()).toEqual(['inputs.json', second.split('/').pop()].sort());
  expect(readFileSync(join(cachedBuild(cache)!, 'fn', 'index.mjs'), 'utf8')).toBe('second');
});
