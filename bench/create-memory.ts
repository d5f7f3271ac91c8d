/**
 * Peak memory of creating an application, per body size (issue 3): the create handler runs in this
 * process as Lambda would run it, on a proxy event whose body is already in memory; the emulators run
 * in a child process. Reported: the peak RSS above the baseline taken with the event built, divided by
 * the body size.
 */
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { startService } from './harness.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');

const service = await startService();
Object.assign(process.env, service.env, { LOG_LEVEL: 'ERROR' });
const { handler } = await import('../functions/applications/create.js');

function event(body: string): APIGatewayProxyEvent {
  return {
    resource: '/applications/',
    path: '/applications/',
    httpMethod: 'POST',
    headers: { 'Content-Type': 'application/json', 'Company-Id': String(service.demo.companyId), Host: 'bench' },
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    body,
    isBase64Encoded: false,
    requestContext: {
      requestId: `bench-${Date.now()}`,
      path: '/applications/',
      authorizer: { keyId: 1, scope: 'partner', partnerId: service.demo.partnerId },
    } as never,
  };
}

const context = { getRemainingTimeInMillis: () => 29_000, functionName: 'bench', awsRequestId: 'bench' } as unknown as Context;
const pdfHeader = Buffer.from('%PDF-1.7\n');

async function measure(fileBytes: number, files: number) {
  const file = Buffer.alloc(fileBytes, 0x41);
  pdfHeader.copy(file, 0);
  const data = file.toString('base64');
  let body: string | undefined = JSON.stringify({
    job: 1,
    candidate: { email: 'bench@example.com', full_name: 'Bench Mark' },
    attachments: Array.from({ length: files }, (_, i) => ({
      type: 'work_sample',
      name: `f${i}.pdf`,
      content_type: 'application/pdf',
      data,
    })),
  });
  const size = body.length;
  const proxyEvent = event(body);
  // Drops the only reference so that the string can be collected before the baseline is taken.
  // eslint-disable-next-line no-useless-assignment
  body = undefined;
  gc!();
  await new Promise((r) => setTimeout(r, 50));
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 1);
  const started = performance.now();
  const response = await handler(proxyEvent, context);
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  if (response.statusCode !== 201) throw new Error(`create failed: ${response.statusCode} ${response.body}`);
  return {
    bodyMB: +(size / 1e6).toFixed(1),
    files,
    peakExtraMB: +((peak - baseline) / 1e6).toFixed(1),
    ratio: +((peak - baseline) / size).toFixed(2),
    ms: Math.round(ms),
  };
}

try {
  const rows = [];
  // Warm up module loading and clients so the first measured run is not charged for them.
  await measure(10_000, 1);
  for (const [bytes, files] of [
    [1_000_000, 1],
    [5_000_000, 1],
    [10_000_000, 2],
    [20_000_000, 1],
  ] as const)
    rows.push(await measure(bytes, files));
  console.log('| body (MB) | files | peak RSS above baseline (MB) | × body | time (ms) |');
  console.log('|---|---|---|---|---|');
  for (const r of rows) console.log(`| ${r.bodyMB} | ${r.files} | ${r.peakExtraMB} | ${r.ratio} | ${r.ms} |`);
} finally {
  await service.stop();
}
