/* global process, performance, structuredClone */
// One cold start, in a fresh process: import the bundle, invoke its handler with the event, report, then a
// second (warm) invocation. Plain JavaScript so that the runner itself costs every function the same.
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 };
const started = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const imported = performance.now();
const first = await handler(structuredClone(event), context);
const invoked = performance.now();
const cpu = process.cpuUsage();
// What the first call achieved: an HTTP status, the authorizer's decision, or the batch's failures.
const outcome =
  first?.statusCode ?? (first?.principalId ? 'allow' : first?.batchItemFailures ? `failures:${first.batchItemFailures.length}` : 'ok');
process.stdout.write(
  `${JSON.stringify({ importMs: imported - started, firstMs: invoked - imported, cpuMs: (cpu.user + cpu.system) / 1000, outcome })}\n`,
);
await handler(structuredClone(event), context);
process.stdout.write(`${JSON.stringify({ secondMs: performance.now() - invoked })}\n`);
process.exit(0);
