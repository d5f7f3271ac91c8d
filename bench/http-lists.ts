/**
 * Throughput and latency of the read routes through the local runtime (a child process, as `npm start`
 * runs it), with autocannon on loopback, bounded in time; and what one request costs in DynamoDB
 * (from the X-DynamoDB-Capacity header). Data: the demo company plus 500 imported jobs and 200
 * applications.
 */
import autocannon from 'autocannon';
import { startService } from './harness.js';

const service = await startService();
Object.assign(process.env, service.env, { LOG_LEVEL: 'ERROR' });
const headers = { Authorization: `Bearer ${service.demo.partnerKey}`, 'Company-Id': String(service.demo.companyId) };

async function call(path: string, init: RequestInit = {}) {
  const res = await fetch(`${service.url}${path}`, { ...init, headers: { ...headers, ...(init.headers ?? {}) } });
  return { status: res.status, capacity: res.headers.get('x-dynamodb-capacity'), body: (await res.json()) as any };
}

try {
  const { importJobs } = await import('#jobs/job-store.js');
  await importJobs(
    service.demo.companyId,
    Array.from({ length: 500 }, (_, i) => ({
      external_id: `bench-${i}`,
      title: `Bench job ${i}`,
      city: i % 2 ? 'Berlin' : 'Hamburg',
      remote: 'remote',
    })),
    { complete: false },
  );
  const job = (await call('/jobs?external_id=bench-1')).body.results[0].id;
  for (let i = 0; i < 200; i++) {
    await call('/applications/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ job, candidate: { email: `bench${i}@example.com`, full_name: 'Bench' } }),
    });
  }

  const first = await call('/jobs?page_size=50');
  const second = await call(new URL(first.body.next).pathname + new URL(first.body.next).search);
  const deep = await call('/jobs?page_size=50&page=9');
  const filtered = await call('/jobs?page_size=50&city=berl');
  const apps = await call('/applications/?page_size=50');
  console.log('| request | DynamoDB per request |');
  console.log('|---|---|');
  for (const [name, r] of [
    ['GET /jobs?page_size=50 (first page)', first],
    ['next page via cursor', second],
    ['GET /jobs?page=9 without cursor', deep],
    ['GET /jobs?city=berl (filtered)', filtered],
    ['GET /applications/?page_size=50', apps],
  ] as const) {
    console.log(`| ${name} | ${r.capacity} |`);
  }

  console.log('\n| route | req/s (mean) | p50 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|');
  for (const path of ['/jobs?page_size=10', '/jobs?page_size=50', `/jobs/${job}`, '/applications/?page_size=10', '/companies/']) {
    const result = await autocannon({ url: `${service.url}${path}`, headers, connections: 10, duration: 8 });
    console.log(
      `| GET ${path} | ${Math.round(result.requests.average)} | ${result.latency.p50} | ${result.latency.p99} | ${result.errors + result.non2xx} |`,
    );
  }
} finally {
  await service.stop();
}
