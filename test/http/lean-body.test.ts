/**
 * The lean body path (issue 15), checked by structure rather than by timing or RSS: while the local
 * runtime creates an application from a 26.7 MB JSON body and from a 20 MB multipart body, nothing on the
 * server side makes a copy of anything near the body's size — no `Buffer.concat` or `toString` above one
 * S3 part (5 MiB, plus the chunk that filled it), no `JSON.parse` of more than a megabyte. fauxqs, the S3 stand-in of the tests, keeps
 * whole objects (it concatenates an upload's parts), so copies made inside it are not counted; what it
 * costs is measured apart by `npm run bench:memory`. The uploaded bytes are checked to be the files.
 */
import { request } from 'node:http';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { allItems, objectBytes, objectKeys, storeState } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: { key: string; id: number };
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
