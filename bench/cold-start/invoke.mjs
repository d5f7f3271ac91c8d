/* global process, performance, structuredClone */
// One cold start, in a fresh process: import the bundle, invoke its handler with the event, report, then a
// second (warm) invocation. Plain JavaScript so that the runner itself costs every function the same.
// During the second invocation it also records how long the function waited on HTTP (the SDK's calls to the
// emulators), from Node's own diagnostics channels: the time during which at least one request was between
// its start and the end of its response. What remains is the function's own time (our code and the SDK's
// work on our side: serialising, signing, parsing), and the CPU time the process used meanwhile, which other load
// on the machine hardly moves. Asked for a number of calls (a third argument), it goes on
// invoking up to that call and reports that call's own time too, the warm figure.
import { subscribe } from 'node:diagnostics_channel';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

const [bundle, eventFile, warmCalls = '0'] = process.argv.slice(2);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const context = { awsRequestId: 'bench', functionName: 'bench', getRemainingTimeInMillis: () => 10_000 };
let recording = false;
let open = 0;
let busySince = 0;
let waitMs = 0;
let calls = 0;
const settle = () => {
  if (--open === 0) waitMs += performance.now() - busySince;
};
subscribe('http.client.request.start', ({ request }) => {
  if (!recording) return;
  calls++;
  if (open++ === 0) busySince = performance.now();
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    settle();
  };
  request.once('error', finish);
  request.once('response', (response) => {
    response.once('end', finish);
    response.once('close', finish);
    response.once('error', finish);
  });
});
const started = performance.now();
const { handler } = await import(pathToFileURL(bundle).href);
const imported = performance.now();
// The first call's wait on the emulators too (P239): DynamoDB Local's latency is not AWS's, so the budget is judged
// on the cold start without it.
recording = true;
const first = await handler(structuredClone(event), context);
recording = false;
const invoked = performance.now();
const firstWaitMs = waitMs;
const firstCalls = calls;
const cpu = process.cpuUsage();
// What the first call achieved: an HTTP status, the authorizer's decision, or the batch's failures.
const outcome =
  first?.statusCode ?? (first?.principalId ? 'allow' : first?.batchItemFailures ? `failures:${first.batchItemFailures.length}` : 'ok');
process.stdout.write(
  `${JSON.stringify({ importMs: imported - started, firstMs: invoked - imported, firstWaitMs, firstCalls, cpuMs: (cpu.user + cpu.system) / 1000, outcome })}\n`,
);

/** One more invocation: its time, and how much of it was spent waiting on HTTP. */
async function timed() {
  waitMs = 0;
  calls = 0;
  const started = performance.now();
  const cpuBefore = process.cpuUsage();
  recording = true;
  await handler(structuredClone(event), context);
  recording = false;
  const cpuUsed = process.cpuUsage(cpuBefore);
  return { ms: performance.now() - started, waitMs, calls, cpuMs: (cpuUsed.user + cpuUsed.system) / 1000 };
}
const second = await timed();
// Then, if asked (reads), further calls until the given one, which is reported as the warm call.
let warm = second;
for (let call = 3; call <= Number(warmCalls); call++) warm = await timed();
process.stdout.write(
  `${JSON.stringify({
    secondMs: second.ms,
    secondWaitMs: second.waitMs,
    secondCalls: second.calls,
    secondCpuMs: second.cpuMs,
    warmOwnMs: warm.ms - warm.waitMs,
    warmCpuMs: warm.cpuMs,
  })}\n`,
);
process.exit(0);
