/**
 * Readable stack traces without `--enable-source-maps` (issue 13): that flag makes Node load and parse the
 * bundle's source maps at every start. Instead each bundle ships its maps beside its files (`index.mjs.map`,
 * and one per chunk under `chunks/`, P283), and an unexpected error's stack is mapped back to the TypeScript
 * sources here, on the error path only: a file's map is read the first time one of its frames is mapped.
 * Outside a bundle (tsx, jest) there is no map and nothing to do.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { basename, dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const maps = new Map<string, SourceMap | null>();

function mapOf(path: string): SourceMap | null {
  let map = maps.get(path);
  if (map === undefined) {
    try {
      map = new SourceMap(JSON.parse(readFileSync(`${path}.map`, 'utf8')));
    } catch {
      map = null;
    }
    maps.set(path, map);
  }
  return map;
}

/** The bundle's directory: this module's, or its parent when this module is in one of the bundle's chunks. */
function bundleRoot(): string {
  const own = dirname(fileURLToPath(import.meta.url));
  return basename(own) === 'chunks' ? dirname(own) : own;
}

/** The error's stack with positions in the bundle's files mapped to source files; undefined without a map. */
export function sourceStack(error: unknown): string | undefined {
  const stack = (error as Error | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  const root = bundleRoot() + sep;
  const rootUrl = pathToFileURL(root).href;
  let mapped = false;
  const result = stack.replace(/([^\s()]+):(\d+):(\d+)/g, (whole, file: string, line: string, column: string) => {
    if (!file.endsWith('.mjs') || !(file.startsWith(rootUrl) || file.startsWith(root))) return whole;
    const map = mapOf(file.startsWith('file:') ? fileURLToPath(file) : file);
    if (!map) return whole;
    mapped = true;
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1);
    if (!('originalSource' in entry) || !entry.originalSource) return whole;
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
  return mapped ? result : undefined;
}
