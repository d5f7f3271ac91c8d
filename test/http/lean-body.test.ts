/**
 * The lean body path (issue 15), checked by structure rather than by timing or RSS: while the local
 * runtime creates an application from a 26.7 MB JSON body and from a 20 MB multipart body, nothing on the
 * server side makes a copy of anything near the body's size — no `Buffer.concat` or `toString` above one
 * S3 part (5 MiB, plus the chunk that filled it), no `JSON.parse` of more than a megabyte. Copies made inside fauxqs, the S3
 * stand-in of the tests, are not counted (since P331 it appends an upload's parts from disk rather than concatenating them);
 * what it costs is measured apart by `npm run bench:memory`. The uploaded bytes are checked to be the files.
 */
import { request } from 'node:http';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems, objectBytes, objectKeys, storeState } from '../helpers/inspect.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: { key: string; id: number; keyId: number };
let company: { id: number };
let job: number;

/** One S3 part as lib-storage builds it (5 MiB and the rest of the chunk that filled it); each file is 10 MB. */
const PART = 5 * 1024 * 1024 + 1024 * 1024;
const PDF = Buffer.from('%PDF-1.7\n');

function file(bytes: number, fill: number): Buffer {
  const data = Buffer.alloc(bytes, fill);
  PDF.copy(data, 0);
  return data;
}

/** Sends the body with node:http (no client-side copies to tell apart), returns status and parsed answer. */
function post(body: Buffer, contentType: string): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${api.url}/applications/`,
      {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${partner.key}`,
          'Company-Id': String(company.id),
          'Content-Type': contentType,
          'Content-Length': String(body.length),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, body: JSON.parse(text) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

interface Copy {
  what: string;
  bytes: number;
  stack: string;
}

/** Records large copies made while `run` runs; those made inside fauxqs are left out. */
async function largeCopies(run: () => Promise<void>): Promise<Copy[]> {
  const copies: Copy[] = [];
  const note = (what: string, bytes: number, limit: number) => {
    if (bytes <= limit) return;
    const stack = new Error('copy').stack ?? '';
    if (!stack.includes('node_modules/fauxqs')) copies.push({ what, bytes, stack });
  };
  const concat = Buffer.concat;
  const toString = Buffer.prototype.toString;
  const parse = JSON.parse;
  Buffer.concat = function (list: readonly Uint8Array[], total?: number) {
    const result = concat.call(Buffer, list, total);
    note('Buffer.concat', result.length, PART);
    return result;
  } as typeof Buffer.concat;
  Buffer.prototype.toString = function (this: Buffer, ...args: Parameters<Buffer['toString']>) {
    const result = toString.apply(this, args);
    note('Buffer#toString', result.length, PART);
    return result;
  } as Buffer['toString'];
  JSON.parse = function (text: string, reviver?: Parameters<typeof JSON.parse>[1]) {
    note('JSON.parse', String(text).length, 1_000_000);
    return parse(text, reviver) as unknown;
  } as typeof JSON.parse;
  try {
    await run();
  } finally {
    Buffer.concat = concat;
    Buffer.prototype.toString = toString;
    JSON.parse = parse;
  }
  return copies;
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { entitlements: [] });
  await withJobs(company.id, [{ external_id: 'J', title: 'Cook' }]);
  job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
});
afterAll(() => api.stop());

test('a 26.7 MB JSON create: no whole-body copy, the Base64 attachments decoded in pieces to S3', async () => {
  const files = [file(10_000_000, 0x41), file(10_000_000, 0x42)];
  const body = Buffer.from(
    JSON.stringify({
      job,
      candidate: { email: 'lean@example.com', full_name: 'Lean Body' },
      attachments: files.map((f, i) => ({
        type: 'work_sample',
        name: `s${i}.pdf`,
        content_type: 'application/pdf',
        data: f.toString('base64'),
      })),
    }),
  );
  expect(body.length).toBeGreaterThan(26_000_000);
  let created: { status: number; body: any } | undefined;
  const copies = await largeCopies(async () => {
    created = await post(body, 'application/json');
  });
  expect(created!.status).toBe(201);
  expect(copies.map(({ what, bytes }) => ({ what, bytes }))).toEqual([]);
  const keys = await objectKeys(`companies/${company.id}/applications/${created!.body.id}/`);
  const stored = await Promise.all(keys.map(objectBytes));
  expect(stored.map((b) => b[PDF.length]).sort()).toEqual([0x41, 0x42]);
  expect(stored.every((b, i) => b.equals(files.find((f) => f[PDF.length] === stored[i][PDF.length])!))).toBe(true);
});

test('a 20 MB multipart create: no whole-body or whole-file copy, the file parts streamed to S3', async () => {
  const boundary = 'lean-body-boundary';
  const files = [file(10_000_000, 0x43), file(10_000_000, 0x44)];
  const body = Buffer.concat([
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="job"\r\n\r\n${job}\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="candidate[email]"\r\n\r\nmulti@example.com\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="candidate[full_name]"\r\n\r\nMulti Part\r\n`,
    ),
    ...files.flatMap((f, i) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv${i}.pdf"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      f,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
  let created: { status: number; body: any } | undefined;
  const copies = await largeCopies(async () => {
    created = await post(body, `multipart/form-data; boundary=${boundary}`);
  });
  expect(created!.status).toBe(201);
  expect(copies.map(({ what, bytes }) => ({ what, bytes }))).toEqual([]);
  const keys = await objectKeys(`companies/${company.id}/applications/${created!.body.id}/`);
  expect(keys).toHaveLength(2);
  const stored = await Promise.all(keys.map(objectBytes));
  expect(stored.map((b) => b[PDF.length]).sort()).toEqual([0x43, 0x44]);
  // No pending-upload marker is left once the create committed.
  expect((await allItems()).filter((item) => String(item.PK).startsWith('PENDINGUPLOAD#'))).toEqual([]);
});

test('a multipart create refused after its file went up leaves no object and no marker', async () => {
  const boundary = 'lean-body-boundary';
  const before = await storeState();
  const body = Buffer.concat([
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
    file(6_000_000, 0x45),
    // The fields come after the file and lack the candidate: the file was already staged when this is read.
    Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="job"\r\n\r\n${job}\r\n--${boundary}--\r\n`),
  ]);
  const refused = await post(body, `multipart/form-data; boundary=${boundary}`);
  expect(refused.status).toBe(400);
  expect(Object.keys(refused.body.errors)).toContain('candidate');
  expect(await storeState()).toEqual(before);
});

function multipart(boundary: string, fields: [string, string][], files: { name: string; filename: string; bytes: Buffer }[]): Buffer {
  return Buffer.concat([
    ...fields.map(([name, value]) => Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`)),
    ...files.flatMap((f) => [
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"; filename="${f.filename}"\r\nContent-Type: application/pdf\r\n\r\n`,
      ),
      f.bytes,
      Buffer.from('\r\n'),
    ]),
    Buffer.from(`--${boundary}--\r\n`),
  ]);
}

test('a multipart body that crosses 27.5 MB while streaming (chunked) is a 413; the files already staged are removed', async () => {
  const before = await storeState();
  const boundary = 'chunked-boundary';
  const head = multipart(boundary, [['job', String(job)]], []).subarray(0, -`--${boundary}--\r\n`.length);
  const chunk = Buffer.alloc(1024 * 1024, 0x46);
  let part = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      // Files of 5 MB each, one after the other, until the body is far above the limit.
      if (part === 0) controller.enqueue(head);
      if (part % 5 === 0)
        controller.enqueue(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="f${part}.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF-`,
          ),
        );
      controller.enqueue(chunk);
      if (part % 5 === 4) controller.enqueue(Buffer.from('\r\n'));
      if (++part > 30) controller.close();
    },
  });
  const res = await contractFetch(`${api.url}/applications/`, {
    method: 'POST',
    headers: {
      Authorization: `Bearer ${partner.key}`,
      'Company-Id': String(company.id),
      'Content-Type': `multipart/form-data; boundary=${boundary}`,
    },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  expect(res.status).toBe(413);
  expect(((await res.json()) as { code: string }).code).toBe('payload_too_large');
  expect(await storeState()).toEqual(before);
});

test('the authorizer answers before a streamed body is read: 401 for a large body without a valid key', async () => {
  const res = await contractFetch(`${api.url}/applications/`, {
    method: 'POST',
    headers: { Authorization: 'Bearer not-a-key', 'Company-Id': String(company.id), 'Content-Type': 'application/json' },
    body: Buffer.alloc(20_000_000, 0x20),
  });
  expect(res.status).toBe(401);
  // The connection was drained, not broken: the next request is answered.
  expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).status).toBe(200);
});

test('a Base64 data given twice in one attachment: the later one is stored, the earlier one removed', async () => {
  const first = Buffer.concat([PDF, Buffer.from('first')]).toString('base64');
  const second = Buffer.concat([PDF, Buffer.from('second, written with escaped slashes')]).toString('base64');
  const text = `{"job":${job},"candidate":{"email":"twice@example.com","full_name":"T W"},"attachments":[{"type":"cv","name":"cv.pdf","content_type":"application\\/pdf","data":"${first}","data":"${second.replaceAll('/', '\\/')}"}]}`;
  const created = await post(Buffer.from(text), 'application/json');
  expect(created.status).toBe(201);
  const keys = await objectKeys(`companies/${company.id}/applications/${created.body.id}/`);
  expect(keys).toHaveLength(1);
  expect((await objectBytes(keys[0])).equals(Buffer.from(second, 'base64'))).toBe(true);
  expect((await allItems()).filter((item) => String(item.PK).startsWith('PENDINGUPLOAD#'))).toEqual([]);
});

test('on Lambda (the body as the event string) JSON and multipart creates work as before', async () => {
  const { handler } = await import('../../functions/applications/create.js');
  const event = (body: string, contentType: string, isBase64Encoded: boolean): APIGatewayProxyEvent =>
    ({
      resource: '/applications/',
      path: '/applications/',
      httpMethod: 'POST',
      headers: { 'Content-Type': contentType, 'Company-Id': String(company.id), Host: 'lambda.test' },
      multiValueHeaders: {},
      queryStringParameters: null,
      multiValueQueryStringParameters: null,
      pathParameters: null,
      stageVariables: null,
      body,
      isBase64Encoded,
      requestContext: {
        requestId: `lambda-${Date.now()}`,
        path: '/applications/',
        authorizer: { keyId: partner.keyId, scope: 'partner', partnerId: partner.id },
      },
    }) as unknown as APIGatewayProxyEvent;
  const context = { getRemainingTimeInMillis: () => 29_000, functionName: 'test', awsRequestId: 'test' } as unknown as Context;
  const cv = Buffer.concat([PDF, Buffer.from('lambda json')]);
  const json = await handler(
    event(
      JSON.stringify({
        job,
        candidate: { email: 'lambda@example.com', full_name: 'Lam Bda' },
        attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: cv.toString('base64') }],
      }),
      'application/json',
      false,
    ),
    context,
  );
  expect(json.statusCode).toBe(201);
  const jsonKeys = await objectKeys(`companies/${company.id}/applications/${JSON.parse(json.body).id}/`);
  expect((await objectBytes(jsonKeys[0])).equals(cv)).toBe(true);
  const boundary = 'lambda-boundary';
  const file = Buffer.concat([PDF, Buffer.from('lambda multipart')]);
  const form = multipart(
    boundary,
    [
      ['job', String(job)],
      ['candidate[email]', 'lambda-mp@example.com'],
      ['candidate[full_name]', 'Lam Bda'],
    ],
    [{ name: 'cv', filename: 'cv.pdf', bytes: file }],
  );
  const mp = await handler(event(form.toString('base64'), `multipart/form-data; boundary=${boundary}`, true), context);
  expect(mp.statusCode).toBe(201);
  const mpKeys = await objectKeys(`companies/${company.id}/applications/${JSON.parse(mp.body).id}/`);
  expect((await objectBytes(mpKeys[0])).equals(file)).toBe(true);
  expect(JSON.parse(mp.body).attachments).toEqual([{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf' }]);
});
