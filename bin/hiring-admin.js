#!/usr/bin/env node
// `hiring-admin`: runs local/admin/index.ts with tsx. Paths are resolved from this file's real location, so it
// works from any working directory and through npm's bin symlinks. The service needs Node 24 (the
// project's `node` devDependency); under an older node (for example the system one) the shim re-runs
// itself with the project's node binary.
import { spawnSync } from 'node:child_process';
import { existsSync, realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = dirname(dirname(realpathSync(fileURLToPath(import.meta.url))));
const major = Number(process.versions.node.split('.')[0]);

if (major < 24) {
  const projectNode = join(root, 'node_modules', 'node', 'bin', 'node');
  if (!existsSync(projectNode)) {
    process.stderr.write(
      `${JSON.stringify({ detail: `hiring-admin needs Node >= 24 (this is ${process.version}); run "npm ci" in ${root} first.`, code: 'node_version' }, null, 2)}\n`,
    );
    process.exit(1);
  }
  const result = spawnSync(projectNode, [fileURLToPath(import.meta.url), ...process.argv.slice(2)], { stdio: 'inherit' });
  if (result.error) throw result.error;
  process.exit(result.status ?? 1);
}

const { register } = await import(pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs')).href);
register();
const admin = await import(pathToFileURL(join(root, 'local', 'admin', 'index.ts')).href);
await admin.run();
