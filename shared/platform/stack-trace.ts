/**
 * Readable stack traces without `--enable-source-maps` (issue 13): that flag makes Node load and parse the
 * bundle's source map at every start. Instead each bundle ships its map beside it (`index.mjs.map`), and an
 * unexpected error's stack is mapped back to the TypeScript sources here, on the error path only: the map
 * is read on the first error of an instance. Outside a bundle (tsx, jest) there is no map and nothing to do.
 */
import { readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { fileURLToPath } from 'node:url';

let loaded: SourceMap | null | undefined;

function bundleMap(): SourceMap | null {
  if (loaded === undefined) {
    try {
      loaded = new SourceMap(JSON.parse(readFileSync(`${fileURLToPath(import.meta.url)}.map`, 'utf8')));
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** The error's stack with positions in this bundle mapped to source files; undefined without a map. */
export function sourceStack(error: unknown): string | undefined {
  const stack = (error as Error | undefined)?.stack;
  if (typeof stack !== 'string') return undefined;
  const map = bundleMap();
  if (!map) return undefined;
  const bundleUrl = import.meta.url;
  const bundlePath = fileURLToPath(bundleUrl);
  return stack.replace(/([^\s()]+):(\d+):(\d+)/g, (whole, file: string, line: string, column: string) => {
    if (file !== bundleUrl && file !== bundlePath) return whole;
    const entry = map.findEntry(Number(line) - 1, Number(column) - 1);
    if (!('originalSource' in entry) || !entry.originalSource) return whole;
    return `${entry.originalSource}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
  });
}
