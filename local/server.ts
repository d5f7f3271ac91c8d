/** `npm start`: the service on this machine, with data in DATA_DIR (default .data) on PORT (default 3000). */
import { resolve } from 'node:path';
import { startRuntime } from './runtime.js';

const dataDir = resolve(process.env.DATA_DIR ?? '.data');
const port = Number(process.env.PORT ?? 3000);

const runtime = await startRuntime({ dataDir, port, host: process.env.HOST ?? '127.0.0.1', seed: process.env.DEMO !== '0' });

console.log(`Hiring Integration Service listening on ${runtime.url}`);
console.log(`Data directory: ${dataDir}`);
console.log(`API reference: ${runtime.url}/docs`);
if (runtime.demo) {
  console.log(`Demo partner ${runtime.demo.partnerId}, demo company ${runtime.demo.companyId}. Try:`);
  console.log(
    `  curl -s -H "Authorization: Bearer ${runtime.demo.partnerKey}" -H "Company-Id: ${runtime.demo.companyId}" ${runtime.url}/jobs`,
  );
  console.log(`  curl -s -H "Authorization: Bearer ${runtime.demo.partnerKey}" ${runtime.url}/companies/`);
}

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`${signal}: shutting down`);
  await runtime.stop();
  process.exit(0);
}
process.on('SIGINT', () => void shutdown('SIGINT'));
process.on('SIGTERM', () => void shutdown('SIGTERM'));
