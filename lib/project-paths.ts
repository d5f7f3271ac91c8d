import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root; bundling and entry points are resolved from it whatever the working directory. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export function functionEntry(handlerModule: string): string {
  return join(projectRoot, 'functions', `${handlerModule}.ts`);
}
