/**
 * The TypeScript client (clients/typescript, issue 25) against the local runtime over real HTTP: every page
 * of companies, jobs and applications walked with `for await` through `next` links; creates with attachments
 * from a Buffer and from a file; a create whose first response is lost (a 503 after the service created it)
 * and then throttled (429) is retried with one Idempotency-Key and stored exactly once; and the API's D2
 * errors thrown as typed errors. The failures come from a small reverse proxy on 127.0.0.1 that passes
 * requests to the runtime and, when told to, swallows the runtime's answer or answers itself.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  attachmentFromBuffer,
  attachmentFromFile,
  createHiringClient,
  HiringApiError,
  HiringClientError,
  NotFoundError,
  ValidationError,
  type HiringClient,
} from '../../clients/typescript/src/index.js';
import { aCompany, aJob, aPartner, withJobs } from '../helpers/fixtures.js';
import { objectBytes, objectKeys } from '../helpers/inspect.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('rest-of-png')]);
const JOBS = 12;
const ARCHIVED = 7;

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let other: Awaited<ReturnType<typeof aPartner>>;
let companies: Awaited<ReturnType<typeof aCompany>>[];
let otherCompany: Awaited<ReturnType<typeof aCompany>>;
let client: HiringClient;
let jobIds: number[];
let dir: string;

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  other = await aPartner();
  companies = [];
  for (let i = 0; i < 5; i++) companies.push(await aCompany(partner.id));
  otherCompany = await aCompany(other.id);
  await withJobs(companies[0].id, [
    ...Array.from({ length: JOBS }, () => aJob()),
    ...Array.from({ length: ARCHIVED }, () => aJob({ status: 'archived' })),
  ]);
  await withJobs(otherCompany.id, [aJob()]);
  client = createHiringClient({
    baseUrl: api.url,
    apiKey: partner.key,
    retry: { baseDelayMs: 5 },
    fetch: (request) => contractFetch(request),
  });
  jobIds = (await api.get(`/jobs?page_size=50&status=active`, { key: partner.key, companyId: companies[0].id })).body.results.map(
    (j: any) => j.id,
  );
  dir = mkdtempSync(join(tmpdir(), 'typed-client-'));
});
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await api.stop();
});

const candidate = (email: string) => ({ email, first_name: 'Ada', last_name: 'Lovelace' });

describe('walking every page with for await', () => {
  test('companies: the partner key sees its five companies, two per page, by following next', async () => {
    const pages = [];
    for await (const page of client.companies.list({ page_size: 2 }).pages()) pages.push(page);
    expect(pages.map((p) => p.results.length)).toEqual([2, 2, 1]);
    expect(pages.every((p) => p.count === 5)).toBe(true);
    expect(pages.slice(0, -1).every((p) => p.next?.startsWith(`${api.url}/companies/`))).toBe(true);

    const seen: number[] = [];
    for await (const company of client.companies.list({ page_size: 2 })) seen.push(company.id);
    expect(seen.sort((a, b) => a - b)).toEqual(companies.map((c) => c.id).sort((a, b) => a - b));
  });

  test('jobs: twelve active jobs in pages of five, each once; the filter is kept across pages', async () => {
    const acme = client.company(companies[0].id);
    const pages = [];
    for await (const page of acme.jobs.list({ page_size: 5, status: 'active' }).pages()) pages.push(page.results.map((j) => j.id));
    expect(pages.map((p) => p.length)).toEqual([5, 5, 2]);
    expect(pages.flat().sort((a, b) => a - b)).toEqual([...jobIds].sort((a, b) => a - b));
    expect(new Set(pages.flat()).size).toBe(JOBS);

    const archived: { id: number; status: string }[] = [];
    let archivedPages = 0;
    for await (const page of acme.jobs.list({ page_size: 3, status: 'archived' }).pages()) {
      archivedPages++;
      archived.push(...page.results.map(({ id, status }) => ({ id, status })));
    }
    expect(archivedPages).toBe(3);
    expect(archived).toHaveLength(ARCHIVED);
    expect(archived.every((j) => j.status === 'archived' && !jobIds.includes(j.id))).toBe(true);
    const one = await acme.jobs.get(jobIds[0]);
    expect(one.id).toBe(jobIds[0]);
  });

  test('applications: each created one listed once across pages of two, filtered by email', async () => {
    const acme = client.company(companies[0].id);
    const created = [];
    for (let i = 0; i < 5; i++)
      created.push(
        await acme.applications.create({ job: jobIds[i], candidate: candidate('walk@example.com'), partner_application_id: `walk-${i}` }),
      );
    await acme.applications.create({ job: jobIds[0], candidate: candidate('someone-else@example.com') });
    const listed: number[] = [];
    let pages = 0;
    for await (const page of acme.applications.list({ email: 'walk@example.com', page_size: 2 }).pages()) {
      pages++;
      for (const application of page.results) listed.push(application.id);
    }
    expect(pages).toBe(3);
    expect(listed.sort((a, b) => a - b)).toEqual(created.map((a) => a.id).sort((a, b) => a - b));
    expect((await acme.applications.list({ email: 'walk@example.com', page_size: 50 }).toArray()).length).toBe(5);
  });
});

test('a company updated through the client (PATCH, Company-Id sent for it)', async () => {
  const updated = await client.company(companies[4].id).update({ website: 'https://acme.example/', city: 'Berlin' });
  expect(updated).toMatchObject({ id: companies[4].id, website: 'https://acme.example/', city: 'Berlin' });
  const error = await client
    .company(companies[4].id)
    .update({ primary_color: 'red' })
    .catch((e: unknown) => e);
  expect(error).toMatchObject({ name: 'ValidationError', status: 400, errors: { primary_color: [expect.any(String)] } });
});

describe('creates with attachments', () => {
  test('from a Buffer and from a file path: stored byte for byte, named and typed', async () => {
    const path = join(dir, 'portrait.png');
    writeFileSync(path, PNG);
    const acme = client.company(companies[0].id);
    const created = await acme.applications.create({
      job: jobIds[1],
      candidate: candidate('files@example.com'),
      attachments: [attachmentFromBuffer(PDF, { name: 'cv.pdf', type: 'cv' }), await attachmentFromFile(path, { type: 'photo' })],
    });
    expect(created.attachments).toEqual([
      { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf' },
      { type: 'photo', name: 'portrait.png', content_type: 'image/png' },
    ]);
    expect((await acme.applications.get(created.id)).attachments).toEqual(created.attachments);
    const keys = await objectKeys(`companies/${companies[0].id}/applications/${created.id}/`);
    const stored = await Promise.all(keys.map(objectBytes));
    expect(stored.map((b) => b.toString('base64')).sort()).toEqual([PDF, PNG].map((b) => b.toString('base64')).sort());
  });

  test('a file name without a known type needs contentType; the API refuses bytes that do not match it', async () => {
    expect(() => attachmentFromBuffer(PDF, { name: 'cv' })).toThrow(/contentType/);
    const error = await client
      .company(companies[0].id)
      .applications.create({
        job: jobIds[1],
        candidate: candidate('mismatch@example.com'),
        attachments: [attachmentFromBuffer(PNG, { name: 'cv.pdf' })],
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(Object.keys((error as ValidationError).errors ?? {})).toEqual([expect.stringMatching(/^attachments\[0\]/)]);
  });
});

interface Seen {
  method: string;
  path: string;
  idempotencyKey: string | undefined;
  bodyHash: string;
  upstreamStatus?: number;
  upstreamBody?: any;
  replayed?: string;
}

type Action = 'forward' | 'forward-then-503' | '429' | '502';

/** A reverse proxy to the runtime that fails requests as scripted (one action per request, then 'forward'). */
async function faultyProxy(upstream: string, script: Action[], options: { rewriteHost?: boolean } = {}) {
  const seen: Seen[] = [];
  const target = new URL(upstream);
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = script.shift() ?? 'forward';
      const entry: Seen = {
        method: req.method!,
        path: req.url!,
        idempotencyKey: req.headers['idempotency-key'] as string | undefined,
        bodyHash: createHash('sha256').update(body).digest('hex'),
      };
      seen.push(entry);
      const fail = (status: number, code: string, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'Content-Type': 'application/json', ...headers });
        res.end(JSON.stringify({ detail: `Injected ${status}.`, code }));
      };
      if (action === '429') return fail(429, 'throttled', { 'Retry-After': '0' });
      if (action === '502') return fail(502, 'bad_gateway');
      // Host stays the proxy's, as behind a real reverse proxy (next links name the proxy), unless told otherwise.
      const headers: IncomingHttpHeaders = { ...req.headers, ...(options.rewriteHost ? { host: target.host } : {}) };
      const upstreamRequest = httpRequest(
        { host: target.hostname, port: target.port, method: req.method, path: req.url, headers },
        (upstreamResponse) => {
          const parts: Buffer[] = [];
          upstreamResponse.on('data', (c: Buffer) => parts.push(c));
          upstreamResponse.on('end', () => {
            const text = Buffer.concat(parts);
            entry.upstreamStatus = upstreamResponse.statusCode;
            entry.replayed = upstreamResponse.headers['idempotent-replayed'] as string | undefined;
            try {
              entry.upstreamBody = JSON.parse(text.toString('utf8'));
            } catch {
              entry.upstreamBody = undefined;
            }
            // The service did the work; its answer is lost on the way back.
            if (action === 'forward-then-503') return fail(503, 'service_unavailable');
            res.writeHead(upstreamResponse.statusCode!, upstreamResponse.headers);
            res.end(text);
          });
        },
      );
      upstreamRequest.on('error', () => fail(502, 'bad_gateway'));
      upstreamRequest.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, seen, script, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('retries', () => {
  test('a create whose answer is lost (503) and then throttled (429) is retried with one key and stored exactly once', async () => {
    const proxy = await faultyProxy(api.url, ['forward-then-503', '429']);
    try {
      const viaProxy = createHiringClient({ baseUrl: proxy.url, apiKey: partner.key, retry: { baseDelayMs: 5 } });
      const application = await viaProxy
        .company(companies[0].id)
        .applications.create({ job: jobIds[2], candidate: candidate('once@example.com'), partner_application_id: 'exactly-once' });

      expect(proxy.seen.map((s) => [s.method, s.upstreamStatus])).toEqual([
        ['POST', 201],
        ['POST', undefined],
        ['POST', 201],
      ]);
      expect(proxy.seen[0].idempotencyKey).toMatch(/^[0-9a-f-]{36}$/);
      expect(new Set(proxy.seen.map((s) => s.idempotencyKey)).size).toBe(1);
      expect(new Set(proxy.seen.map((s) => s.bodyHash)).size).toBe(1);
      expect(proxy.seen[2].replayed).toBe('true');
      expect(application.id).toBe(proxy.seen[0].upstreamBody.id);

      const stored = await client.company(companies[0].id).applications.list({ partner_application_id: 'exactly-once' }).toArray();
      expect(stored.map((a) => a.id)).toEqual([application.id]);
    } finally {
      await proxy.close();
    }
  });

  test('control: the same lost answer retried without an Idempotency-Key stores the application twice', async () => {
    const proxy = await faultyProxy(api.url, ['forward-then-503']);
    try {
      const send = () =>
        fetch(`${proxy.url}/applications/`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(companies[0].id), 'Content-Type': 'application/json' },
          body: JSON.stringify({ job: jobIds[3], candidate: candidate('twice@example.com'), partner_application_id: 'naive-retry' }),
        });
      expect((await send()).status).toBe(503);
      expect((await send()).status).toBe(201);
      const stored = await client.company(companies[0].id).applications.list({ partner_application_id: 'naive-retry' }).toArray();
      expect(stored).toHaveLength(2);
    } finally {
      await proxy.close();
    }
  });

  test('a 400 is not retried', async () => {
    const proxy = await faultyProxy(api.url, []);
    try {
      const viaProxy = createHiringClient({ baseUrl: proxy.url, apiKey: partner.key, retry: { baseDelayMs: 5 } });
      const error = await viaProxy
        .company(companies[0].id)
        .applications.create({ job: jobIds[0], candidate: { email: 'not-an-email', full_name: 'Ada' } })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect(proxy.seen.map((s) => s.upstreamStatus)).toEqual([400]);
    } finally {
      await proxy.close();
    }
  });

  test('reads are retried after a 502, next links name the proxy; with retries off the ServerError comes at once', async () => {
    const proxy = await faultyProxy(api.url, ['502']);
    try {
      const viaProxy = createHiringClient({ baseUrl: proxy.url, apiKey: partner.key, retry: { baseDelayMs: 5 } });
      const ids: number[] = [];
      for await (const company of viaProxy.companies.list({ page_size: 2 })) ids.push(company.id);
      expect(ids).toHaveLength(5);
      expect(proxy.seen.map((s) => s.upstreamStatus)).toEqual([undefined, 200, 200, 200]);
      expect(proxy.seen.slice(2).every((s) => s.path.startsWith('/companies/?') && s.path.includes('cursor='))).toBe(true);

      proxy.script.push('502');
      const noRetry = createHiringClient({ baseUrl: proxy.url, apiKey: partner.key, retry: false });
      const error = await noRetry.companies
        .list()
        .toArray()
        .catch((e: unknown) => e);
      expect(error).toMatchObject({ name: 'ServerError', status: 502, code: 'bad_gateway' });
    } finally {
      await proxy.close();
    }
  });

  test('a next link to another origin is not followed: the key never goes to another host', async () => {
    // A proxy that passes the runtime's own Host: the runtime's next links then name the runtime, not the proxy.
    const proxy = await faultyProxy(api.url, [], { rewriteHost: true });
    try {
      const viaProxy = createHiringClient({ baseUrl: proxy.url, apiKey: partner.key });
      const walked: number[] = [];
      const error = await (async () => {
        for await (const company of viaProxy.companies.list({ page_size: 2 })) walked.push(company.id);
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HiringClientError);
      expect(String(error)).toContain(api.url);
      expect(walked).toHaveLength(2);
      expect(proxy.seen).toHaveLength(1);
    } finally {
      await proxy.close();
    }
  });
});

describe('typed errors in the D2 shape', () => {
  test('400 names the field', async () => {
    const error = await client
      .company(companies[0].id)
      .applications.create({ job: jobIds[0], candidate: { email: 'not-an-email', full_name: 'Ada' } })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect(error).toBeInstanceOf(HiringApiError);
    const e = error as ValidationError;
    expect(e.status).toBe(400);
    expect(e.code).toBe('invalid');
    expect(typeof e.detail).toBe('string');
    expect(e.messagesFor('candidate.email').length).toBeGreaterThan(0);
    expect(Object.keys(e.errors ?? {})).toEqual(['candidate.email']);
    expect(e.toJSON()).toEqual({ detail: e.detail, code: 'invalid', errors: { 'candidate.email': [...e.messagesFor('candidate.email')] } });
    expect(e.requestId).toEqual(expect.any(String));
  });

  test("404 for another tenant's application, also for a partner that may see only its own", async () => {
    const mine = await client.company(companies[0].id).applications.create({ job: jobIds[4], candidate: candidate('tenant@example.com') });
    const stranger = createHiringClient({ baseUrl: api.url, apiKey: other.key, fetch: (request) => contractFetch(request) });
    const error = await stranger
      .company(otherCompany.id)
      .applications.get(mine.id)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', errors: undefined });
    // Acting for a company of another partner is a 403, typed too.
    const forbidden = await stranger
      .company(companies[0].id)
      .applications.get(mine.id)
      .catch((e: unknown) => e);
    expect(forbidden).toMatchObject({ name: 'PermissionDeniedError', status: 403 });
  });
});
