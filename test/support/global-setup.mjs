/**
 * Jest's global set-up: one DynamoDB Local (AWS's emulator, in memory) for the whole run. Every test
 * runtime, and every admin command a test spawns, finds it through `DYNAMODB_LOCAL_ENDPOINT` and makes a
 * table of its own (local/emulators.ts); the global teardown stops the JVM. Jest loads this file outside its
 * transform, so the TypeScript module is loaded through tsx.
 */
import process from 'node:process';
import { tsImport } from 'tsx/esm/api';

export default async function globalSetup() {
  if (process.env.DYNAMODB_LOCAL_ENDPOINT) return;
  const { startDynamoDbLocal } = await tsImport('../../local/dynamodb-local.ts', import.meta.url);
  const dynamo = await startDynamoDbLocal({ heapMb: Number(process.env.DYNAMODB_LOCAL_HEAP_MB ?? 1024) });
  globalThis.__dynamoDbLocal = dynamo;
  process.env.DYNAMODB_LOCAL_ENDPOINT = dynamo.endpoint;
}
