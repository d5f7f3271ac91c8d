import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';

/** The repository root; bundling and entry points are resolved from it whatever the working directory. */
export const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export function functionEntry(handlerModule: string): string {
  return join(projectRoot, 'functions', `${handlerModule}.ts`);
}

/** Every handler module: each `.ts` file under `functions/`, as a path without extension (`jobs/list`). */
export function allHandlerModules(): string[] {
  return readdirSync(join(projectRoot, 'functions'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => file.slice(0, -'.ts'.length).split('\\').join('/'));
}
