/** Jest's global teardown: stops the run's DynamoDB Local JVMs and deletes their database files (global-setup.mjs). */
import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  await Promise.all((globalThis.__dynamoDbLocal ?? []).map((d) => d.stop()));
  for (const dir of globalThis.__dynamoDbLocalDirs ?? []) rmSync(dir, { recursive: true, force: true });
}
