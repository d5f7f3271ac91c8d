/**
 * Issue 10: the reproduced defects, one test (or a few) each, through HTTP into the local runtime. Every
 * rejected request must be a 4xx in the D2 shape naming the field and leave the stores as they were.
 */
import { request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { makeCursor } from '#platform/pagination.js';
import { aCompany, aPartner, aJob, withJobs } from '../helpers/fixtures.js';
import { applicationItems, drainQueue, storeState } from '../helpers/inspect.js';
import { contractFetch, startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let jobId: number;

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { entitlements: ['candidate_sync'] });
  await withJobs(company.id, [aJob({ external_id: 'H-1' }), aJob({ external_id: 'H-2' }), aJob({ external_id: 'H-3' })]);
  jobId = (await api.get('/jobs?external_id=H-1', { key: partner.key, companyId: company.id })).body.results[0].id;
});
afterAll(() => api.stop());
beforeEach(() => drainQueue());

const candidate = { email: 'mallory@example.com', full_name: 'Mallory Example' };
const post = (body: unknown, headers: Record<string, string> = {}, companyId: number | string = company.id) =>
  api.request('POST', '/applications/', { key: partner.key, companyId, body, headers });

const postRaw = (text: string) =>
  api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    rawBody: text,
    headers: { 'Content-Type': 'application/json' },
  });

/** A 4xx in the D2 shape naming `field` among its errors. */
function expectFieldError(res: TestResponse, field: string, status = 400) {
  expect(res.status).toBe(status);
  expect(res.body).toEqual(expect.objectContaining({ detail: expect.any(String), code: expect.any(String) }));
  expect(Object.keys(res.body.errors ?? {})).toContain(field);
}

/** Runs `act` and asserts it left every store as it was. */
async function leavesNothing(act: () => Promise<void>) {
  const before = await storeState();
  await act();
  expect(await storeState()).toEqual({ ...before, messages: 0 });
}

async function alive() {
  expect((await api.get('/companies/', { key: partner.key })).status).toBe(200);
}

describe('defect 1: deeply nested free-form objects', () => {
  test('custom_fields nested 3,000 levels is a 400 naming the field; the server survives', async () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 3000; i++) deep = { a: deep };
    await leavesNothing(async () => {
      const res = await post({ job: jobId, candidate, custom_fields: deep });
      expect(res.status).toBe(400);
      expect(Object.keys(res.body.errors).some((f) => f.startsWith('custom_fields'))).toBe(true);
    });
    let deepArray: unknown = 1;
    for (let i = 0; i < 3000; i++) deepArray = [deepArray];
    const res = await post({ job: jobId, candidate, custom_fields: { list: deepArray } });
    expect(res.status).toBe(400);
    await alive();
  });

  test('limits: depth 5 and 100 keys are accepted, depth 6, 101 keys or more than 64 KB are not', async () => {
    const ok = await post({ job: jobId, candidate, custom_fields: { a: { b: { c: { d: { e: 1 } } } } } });
    expect(ok.status).toBe(201);
    expect(ok.body.custom_fields).toEqual({ a: { b: { c: { d: { e: 1 } } } } });
    expectFieldError(
      await post({ job: jobId, candidate, custom_fields: { a: { b: { c: { d: { e: { f: 1 } } } } } } }),
      'custom_fields.a.b.c.d.e',
    );
    const wide = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i]));
    expectFieldError(await post({ job: jobId, candidate, custom_fields: wide }), 'custom_fields');
    const big = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, 'x'.repeat(9000)]));
    expectFieldError(await post({ job: jobId, candidate, custom_fields: big }), 'custom_fields');
  });
});

describe('defect 2: idempotency never makes a duplicate', () => {
  test('A, then B with the same key (422), then A again: the first response, the record kept', async () => {
    const key = { 'Idempotency-Key': 'hostile-1' };
    const a = { job: jobId, candidate };
    const first = await post(a, key);
    expect(first.status).toBe(201);
    const other = await post({ ...a, custom_fields: { other: true } }, key);
    expect(other.status).toBe(422);
    expect(other.body.code).toBe('idempotency_key_reused');
    const again = await post(a, key);
    expect(again.status).toBe(201);
    expect(again.body.id).toBe(first.body.id);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  test('concurrent duplicates: exactly one application, the others 409 with Retry-After, then the first response', async () => {
    for (let round = 0; round < 3; round++) {
      const key = { 'Idempotency-Key': `hostile-concurrent-${round}` };
      const body = { job: jobId, candidate, notes: `round ${round}` };
      const before = (await applicationItems()).length;
      const responses = await Promise.all(Array.from({ length: 6 }, () => post(body, key)));
      const created = responses.filter((r) => r.status === 201);
      const busy = responses.filter((r) => r.status === 409);
      expect(created.length + busy.length).toBe(responses.length);
      expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
      for (const r of busy) {
        expect(r.body.code).toBe('idempotency_in_progress');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect((await applicationItems()).length).toBe(before + 1);
      const later = await post(body, key);
      expect(later.status).toBe(201);
      expect(later.body.id).toBe(created[0].body.id);
      expect((await applicationItems()).length).toBe(before + 1);
    }
  });

  test('the scope is the parsed Company-Id: 055 and 55 are the same company', async () => {
    const key = { 'Idempotency-Key': 'hostile-padded' };
    const first = await post({ job: jobId, candidate }, key, company.id);
    const padded = await post({ job: jobId, candidate }, key, `00${company.id}`);
    expect(first.status).toBe(201);
    expect(padded.status).toBe(201);
    expect(padded.body.id).toBe(first.body.id);
    expect(padded.headers.get('idempotent-replayed')).toBe('true');
  });
});

describe('defect 3: names that are Object.prototype members', () => {
  const names = ['toString', '__proto__', 'constructor', 'valueOf', 'hasOwnProperty'];

  test.each(names)('%s at the top level of a POST and a PATCH body is a 400 naming it', async (name) => {
    await leavesNothing(async () => {
      expectFieldError(await post(JSON.parse(`{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "${name}": 1}`)), name);
    });
    const patch = await api.request('PATCH', `/companies/${company.id}/`, {
      key: partner.key,
      companyId: company.id,
      rawBody: `{"${name}": "x"}`,
      headers: { 'Content-Type': 'application/json' },
    });
    expectFieldError(patch, name);
  });

  test('inside custom_fields and social_links: stored and echoed when storable, else a 400 naming it', async () => {
    const ok = await post(
      JSON.parse(
        `{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "custom_fields": {"toString": "a", "valueOf": 1, "hasOwnProperty": true}, "social_links": {"toString": "https://example.com/t"}}`,
      ),
    );
    expect(ok.status).toBe(201);
    expect(ok.body.custom_fields).toEqual({ toString: 'a', valueOf: 1, hasOwnProperty: true });
    const read = await api.get(`/applications/${ok.body.id}`, { key: partner.key, companyId: company.id });
    expect(read.body.custom_fields).toEqual({ toString: 'a', valueOf: 1, hasOwnProperty: true });
    expect(read.body.social_links).toEqual({ toString: 'https://example.com/t' });
    for (const name of ['__proto__', 'constructor']) {
      await leavesNothing(async () => {
        const body = `{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "custom_fields": {"${name}": {"x": 1}}}`;
        expectFieldError(await post(JSON.parse(body)), `custom_fields.${name}`);
        const links = `{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "social_links": {"${name}": "https://example.com"}}`;
        expectFieldError(await post(JSON.parse(links)), `social_links.${name}`);
      });
    }
  });

  test('in a urlencoded form alike: toString and valueOf stored, __proto__ and constructor a 400 naming them', async () => {
    const form = (fields: string) =>
      api.request('POST', '/applications/', {
        key: partner.key,
        companyId: company.id,
        rawBody: `job=${jobId}&candidate[email]=f%40example.com&candidate[full_name]=Form%20User&${fields}`,
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      });
    const ok = await form('custom_fields[toString]=a&custom_fields[valueOf]=b&social_links[hasOwnProperty]=https%3A%2F%2Fexample.com%2Fh');
    expect(ok.status).toBe(201);
    expect(ok.body.custom_fields).toEqual({ toString: 'a', valueOf: 'b' });
    expect(ok.body.social_links).toEqual({ hasOwnProperty: 'https://example.com/h' });
    await leavesNothing(async () => {
      expectFieldError(await form('custom_fields[__proto__][x]=1'), 'custom_fields.__proto__');
      expectFieldError(await form('__proto__[polluted]=1'), '__proto__');
      expectFieldError(await form('custom_fields[constructor][x]=1'), 'custom_fields.constructor');
    });
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  test.each(names)('%s as a query parameter or header name is harmless', async (name) => {
    const query = await api.get(`/jobs?${name}=1&page_size=1`, { key: partner.key, companyId: company.id });
    expect(query.status).toBe(200);
    expect(query.body.next).toContain(`${name}=1`);
    const header = await api.get('/jobs', { key: partner.key, companyId: company.id, headers: { [name]: 'x' } });
    expect(header.status).toBe(200);
  });
});

describe('defect 4: values DynamoDB cannot store', () => {
  test.each(['1e400', '1e200', '123456789012345678901234567890123456789012', '5e-324', '-1e400'])(
    'custom_fields number %s is a 400 naming the field',
    async (number) => {
      await leavesNothing(async () => {
        // Sent as text: JSON.stringify would turn Infinity into null before it left the client.
        const res = await postRaw(`{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "custom_fields": {"n": ${number}}}`);
        expectFieldError(res, 'custom_fields.n');
      });
    },
  );

  test('storable numbers (0, -0, 2^53-1, 1e-130, 0.1) are kept', async () => {
    const res = await post(
      JSON.parse(
        `{"job": ${jobId}, "candidate": ${JSON.stringify(candidate)}, "custom_fields": {"a": 0, "b": 9007199254740991, "c": 1e-130, "d": 0.1, "e": -0}}`,
      ),
    );
    expect(res.status).toBe(201);
    const read = await api.get(`/applications/${res.body.id}`, { key: partner.key, companyId: company.id });
    expect(read.body.custom_fields).toEqual({ a: 0, b: 9007199254740991, c: 1e-130, d: 0.1, e: 0 });
  });

  test('"attachments": [null] and a 42-digit job id are 400s', async () => {
    await leavesNothing(async () => {
      expectFieldError(await post({ job: jobId, candidate, attachments: [null] }), 'attachments[0]');
      expectFieldError(
        await postRaw(`{"job": 123456789012345678901234567890123456789012, "candidate": {"email": "a@b.example", "full_name": "A"}}`),
        'job',
      );
    });
  });
});

describe('defect 10: text DynamoDB cannot store or key by', () => {
  // A lone UTF-16 surrogate survives JSON.parse (`"\ud800"`) but is not Unicode text: DynamoDB (UTF-8) cannot hold it.
  const lone = '\\ud800';
  test.each([
    ['candidate.full_name', `"candidate": {"email": "a@b.example", "full_name": "x${lone}"}`],
    ['notes', `"candidate": ${JSON.stringify(candidate)}, "notes": "a${lone}b"`],
    ['channel', `"candidate": ${JSON.stringify(candidate)}, "channel": "c${lone}"`],
    ['partner_job_id', `"candidate": ${JSON.stringify(candidate)}, "partner_job_id": "p${lone}"`],
    ['custom_fields', `"candidate": ${JSON.stringify(candidate)}, "custom_fields": {"k${lone}": 1}`],
    ['social_links', `"candidate": ${JSON.stringify(candidate)}, "social_links": {"x${lone}": "https://example.com"}`],
  ])('a lone surrogate in %s is a 400 naming it; nothing is written and the company reads on', async (field, fields) => {
    await leavesNothing(async () => {
      const res = await postRaw(`{"job": ${jobId}, ${fields}}`);
      expectFieldError(res, field);
      expect(res.body.errors[field]).toEqual([expect.stringContaining('well-formed Unicode')]);
    });
    const list = await api.get('/applications/?channel=c', { key: partner.key, companyId: company.id });
    expect(list.status).toBe(200);
    expect((await post({ job: jobId, candidate, channel: 'c', partner_job_id: 'p' })).status).toBe(201);
  });

  test('a text filter over 500 characters is a 400 naming it (it would be a key DynamoDB refuses); 500 of them, 3 bytes each, are fine', async () => {
    const auth = { key: partner.key, companyId: company.id };
    for (const [path, name] of [
      ['/applications/', 'channel'],
      ['/applications/', 'partner_job_id'],
      ['/applications/', 'email'],
      ['/jobs', 'language'],
      ['/jobs', 'title'],
    ]) {
      expectFieldError(await api.get(`${path}?${name}=${'a'.repeat(501)}`, auth), name);
      const fine = await api.get(`${path}?${name}=${encodeURIComponent('€'.repeat(500))}`, auth);
      expect([name, fine.status, fine.body.count]).toEqual([name, 200, 0]);
    }
    expectFieldError(await api.get(`/companies/?partner_company_id=${'a'.repeat(501)}`, { key: partner.key }), 'partner_company_id');
    expect((await api.get(`/companies/?partner_company_id=${encodeURIComponent('€'.repeat(500))}`, { key: partner.key })).status).toBe(200);
  });

  test("a company's partner_company_id (a lookup key) is at most 255 characters; 255 of 3 bytes each are stored and found", async () => {
    const patch = (value: string) =>
      api.request('PATCH', `/companies/${company.id}/`, { key: partner.key, companyId: company.id, body: { partner_company_id: value } });
    expectFieldError(await patch('x'.repeat(256)), 'partner_company_id');
    const long = '€'.repeat(255);
    expect((await patch(long)).status).toBe(200);
    const found = await api.get(`/companies/?partner_company_id=${encodeURIComponent(long)}`, { key: partner.key });
    expect(found.body.results.map((c: { id: number }) => c.id)).toEqual([company.id]);
    expect((await patch('H-company')).status).toBe(200);
  });

  test('a job import whose language or country would overflow its slot key is refused whole, naming the field', async () => {
    const before = await storeState();
    await expect(withJobs(company.id, [aJob({ external_id: 'H-LONG', country: 'x'.repeat(2100) })])).rejects.toMatchObject({
      statusCode: 400,
      errors: { '[0].country': expect.any(Array) },
    });
    await expect(withJobs(company.id, [aJob({ external_id: 'H-LONG', language: '語'.repeat(256) })])).rejects.toMatchObject({
      errors: { '[0].language': expect.any(Array) },
    });
    expect(await storeState()).toEqual({ ...before, messages: 0 });
  });

  test("a multipart file's name over 255 characters is a 400 naming it, as in JSON; nothing is stored", async () => {
    const boundary = 'hostile-boundary-10';
    const part = (headers: string, body: string) => `--${boundary}\r\n${headers}\r\n\r\n${body}\r\n`;
    const body =
      part('Content-Disposition: form-data; name="job"', String(jobId)) +
      part('Content-Disposition: form-data; name="candidate[email]"', candidate.email) +
      part('Content-Disposition: form-data; name="candidate[full_name]"', candidate.full_name) +
      part(
        `Content-Disposition: form-data; name="cv"; filename="${'n'.repeat(16_000)}.pdf"\r\nContent-Type: application/pdf`,
        '%PDF-1.4 x',
      ) +
      `--${boundary}--\r\n`;
    await leavesNothing(async () => {
      const res = await api.request('POST', '/applications/', {
        key: partner.key,
        companyId: company.id,
        rawBody: body,
        headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      });
      expectFieldError(res, 'attachments[0].name');
    });
  });
});

describe('defect 5: media types of attachments', () => {
  const PDF = Buffer.from('%PDF-1.7\n%%EOF\n').toString('base64');

  test('a content type with a line break and a second header is a 400 naming it; nothing stored', async () => {
    await leavesNothing(async () => {
      const res = await post({
        job: jobId,
        candidate,
        attachments: [{ name: 'cv.pdf', content_type: 'application/pdf; x=1\r\nContent-Type: text/html\r\n\r\n<html>', data: PDF }],
      });
      expectFieldError(res, 'attachments[0].content_type');
    });
  });

  test('malformed parameters are refused; a valid media type is stored in its normalised form', async () => {
    for (const bad of ['application/pdf;', 'application/pdf; x', 'application/pdf; x="1', 'application /pdf', 'application/pdf\u0000']) {
      expectFieldError(
        await post({ job: jobId, candidate, attachments: [{ name: 'cv.pdf', content_type: bad, data: PDF }] }),
        'attachments[0].content_type',
      );
    }
    const good = await post({
      job: jobId,
      candidate,
      attachments: [{ name: 'cv.pdf', content_type: 'Application/PDF; Version="1 7"', data: PDF }],
    });
    expect(good.status).toBe(201);
    expect(good.body.attachments).toEqual([{ type: 'other', name: 'cv.pdf', content_type: 'application/pdf; version="1 7"' }]);
  });
});

describe('defect 6: only http and https URLs are stored', () => {
  const dangerous = [
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'vbscript:msgbox(1)',
    'file:///etc/passwd',
    'mailto:a@b.example',
    'JavaScript://example.com/%0Aalert(1)',
    'https://user:pw@example.com/',
  ];

  test.each(dangerous)('%s is refused in website, logo, application_url and social_links', async (url) => {
    for (const field of ['website', 'logo']) {
      await leavesNothing(async () => {
        const res = await api.request('PATCH', `/companies/${company.id}/`, {
          key: partner.key,
          companyId: company.id,
          body: { [field]: url },
        });
        expectFieldError(res, field);
      });
    }
    await leavesNothing(async () => {
      expectFieldError(await post({ job: jobId, candidate, application_url: url }), 'application_url');
      expectFieldError(await post({ job: jobId, candidate, social_links: { linkedin: url } }), 'social_links.linkedin');
    });
  });

  test('a job import with a javascript: URL is refused whole, naming the field', async () => {
    const before = await storeState();
    await expect(withJobs(company.id, [aJob({ external_id: 'H-JS', posting_url: 'javascript:alert(1)' })])).rejects.toMatchObject({
      statusCode: 400,
      errors: { '[0].posting_url': expect.any(Array) },
    });
    await expect(withJobs(company.id, [aJob({ external_id: 'H-JS', application_url: 'data:text/html,x' })])).rejects.toMatchObject({
      errors: { '[0].application_url': expect.any(Array) },
    });
    expect(await storeState()).toEqual({ ...before, messages: 0 });
  });

  test('http and https URLs are kept as sent', async () => {
    const res = await api.request('PATCH', `/companies/${company.id}/`, {
      key: partner.key,
      companyId: company.id,
      body: { website: 'https://example.com/a?b=c#d', logo: 'http://cdn.example.com/logo.png' },
    });
    expect(res.status).toBe(200);
    expect(res.body.website).toBe('https://example.com/a?b=c#d');
  });
});

/** A raw HTTP/1.1 request with a Host header of our choosing (fetch does not let a client set it). */
function rawGet(path: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { port } = new URL(api.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'GET', headers, setHost: false }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => (text += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : undefined }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('defect 7: page links are not built from client headers', () => {
  const auth = () => ({ Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id) });

  test('X-Forwarded-Proto never reaches a link; a malformed Host is a 400 naming it', async () => {
    const res = await rawGet('/jobs?page_size=1', {
      ...auth(),
      Host: `127.0.0.1:${new URL(api.url).port}`,
      'X-Forwarded-Proto': 'javascript',
    });
    expect(res.status).toBe(200);
    expect(res.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jobs\?/);
    for (const host of ['[', 'javascript:alert(1)', 'a b', 'example.com/evil', 'example.com:99999']) {
      const bad = await rawGet('/jobs?page_size=1', { ...auth(), Host: host });
      expect(bad.status).toBe(400);
      expect(Object.keys(bad.body.errors)).toEqual(['Host']);
    }
  });

  test('PUBLIC_BASE_URL, when set, is the base of every link', async () => {
    process.env.PUBLIC_BASE_URL = 'https://api.example.com/v1/';
    try {
      const res = await rawGet('/jobs?page_size=1', { ...auth(), Host: 'evil.example' });
      expect(res.body.next).toMatch(/^https:\/\/api\.example\.com\/v1\/jobs\?/);
    } finally {
      delete process.env.PUBLIC_BASE_URL;
    }
  });

  test('behind the large-body ingest’s CloudFront, links take the host CloudFront forwards, and only there (P274)', async () => {
    const headers = { ...auth(), Host: `127.0.0.1:${new URL(api.url).port}`, 'X-Forwarded-Host': 'd111.cloudfront.net' };
    // Without CloudFront in front, a client's X-Forwarded-Host is nobody's word.
    expect((await rawGet('/jobs?page_size=1', headers)).body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jobs\?/);
    process.env.VIEWER_HOST_FROM_CLOUDFRONT = 'true';
    try {
      expect((await rawGet('/jobs?page_size=1', headers)).body.next).toMatch(/^https:\/\/d111\.cloudfront\.net\/jobs\?/);
      // A value that is no host is ignored, not echoed.
      const odd = await rawGet('/jobs?page_size=1', { ...headers, 'X-Forwarded-Host': 'evil.example/x?' });
      expect(odd.status).toBe(200);
      expect(odd.body.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/jobs\?/);
    } finally {
      delete process.env.VIEWER_HOST_FROM_CLOUDFRONT;
    }
  });
});

describe('defect 8: cursors', () => {
  test('a cursor is opaque: it does not show the key layout', async () => {
    const res = await api.get('/jobs?page_size=1', { key: partner.key, companyId: company.id });
    const cursor = new URL(res.body.next as string).searchParams.get('cursor')!;
    expect(cursor).toBeDefined();
    const decoded = Buffer.from(cursor.split('.')[0], 'base64url').toString('latin1');
    expect(decoded).not.toMatch(/COMPANY#|JOB#|GSI|position/);
  });

  test('a genuine cursor with an empty position is a 400, like every malformed cursor', async () => {
    const q = Object.assign(Object.create(null), { page_size: ['1'] }) as Record<string, string[]>;
    const empty = makeCursor(q, { scope: `jobs:company:${company.id}`, filterParams: [], limitAlias: true }, 2, 1, {
      position: {},
      count: 3,
    });
    const res = await api.get(`/jobs?page_size=1&page=2&cursor=${empty}`, { key: partner.key, companyId: company.id });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_cursor');
    const genuine = new URL(
      (await api.get('/jobs?page_size=1', { key: partner.key, companyId: company.id })).body.next as string,
    ).searchParams.get('cursor')!;
    for (const bad of [
      '',
      '.',
      'x',
      'a.b',
      genuine.slice(0, -2),
      `${genuine}A`,
      'A'.repeat(5000),
      '%00',
      genuine.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
    ]) {
      const r = await api.get(`/jobs?page_size=1&page=2&cursor=${encodeURIComponent(bad)}`, { key: partner.key, companyId: company.id });
      if (bad === '') expect(r.status).toBe(200);
      else expect(r.status).toBe(400);
    }
  });
});

describe('defect 9: the 413 reaches clients that keep sending', () => {
  const TOO_LARGE = 28_000_000;

  test('a client writing the whole oversized body before reading gets the 413, not a reset', async () => {
    const { port } = new URL(api.url);
    for (let round = 0; round < 3; round++) {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1');
        let received = '';
        socket.on('data', (c: Buffer) => (received += c.toString('latin1')));
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
        socket.write(
          `POST /applications/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${partner.key}\r\nCompany-Id: ${company.id}\r\nContent-Type: application/json\r\nContent-Length: ${TOO_LARGE}\r\n\r\n`,
        );
        const chunk = Buffer.alloc(1024 * 1024, 0x20);
        let sent = 0;
        const pump = () => {
          while (sent < TOO_LARGE) {
            const size = Math.min(chunk.length, TOO_LARGE - sent);
            sent += size;
            if (!socket.write(chunk.subarray(0, size))) return void socket.once('drain', pump);
          }
          socket.end();
        };
        pump();
      });
      expect(answer).toMatch(/^HTTP\/1\.1 413 /);
      expect(answer).toContain('"code":"payload_too_large"');
    }
  });

  test("Node's fetch sending a chunked oversized body gets the 413", async () => {
    const chunk = new Uint8Array(1024 * 1024).fill(0x20);
    let sent = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent >= TOO_LARGE) return controller.close();
        sent += chunk.length;
        controller.enqueue(chunk);
      },
    });
    const res = await contractFetch(`${api.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id), 'Content-Type': 'application/json' },
      body,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
    await alive();
  });
});

describe('every response', () => {
  test('carries nosniff and no-store, answered by a function or by the gateway', async () => {
    for (const res of [
      await api.get('/companies/', { key: partner.key }),
      await api.get('/companies/'),
      await api.get('/nowhere'),
      await api.get('/jobs', { key: partner.key }),
      await api.get('/openapi.json'),
    ]) {
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('cache-control')).toBe('no-store');
    }
  });
});

test('a talent channel logo must be an http(s) URL too (it is handed out as talent_channel_logo)', async () => {
  const { createChannel } = await import('#applications/channels.js');
  await expect(createChannel({ slug: 'evil-channel', name: 'Evil', logo: 'javascript:alert(1)' })).rejects.toMatchObject({
    statusCode: 400,
    errors: { logo: expect.any(Array) },
  });
  await expect(createChannel({ slug: 'good-channel', name: 'Good', logo: 'https://logo.example/g.png' })).resolves.toMatchObject({
    logo: 'https://logo.example/g.png',
  });
});
