/**
 * The Ashby simulator checked against Ashby's own reference, without our connector (P279): requests rebuilt
 * from the fields Ashby's pages document, sent straight to the simulator with fetch, and the answers checked
 * as those pages describe them. The shapes our connector used before (a multipart-style file reference in a
 * JSON submit) and handles of the wrong context are refused as Ashby documents.
 */
import { ashbyBoard, startAshbySimulator, type AshbySimulator } from '../simulators/ashby.js';

const POSTING = 'c0ffee00-0000-4000-8000-000000000001';
let ashby: AshbySimulator;
let base: string;
const board = ashbyBoard('examples', { postings: [{ id: POSTING, title: 'Software Engineer' }] });
const basic = (key: string) => `Basic ${Buffer.from(`${key}:`).toString('base64')}`;
const headers = { Authorization: basic(board.apiKey), Accept: 'application/json; version=1', 'Content-Type': 'application/json' };

beforeAll(async () => {
  ashby = await startAshbySimulator();
  ashby.boards.set(board.name, board);
  base = ashby.env.ASHBY_API_URL;
});
afterAll(() => ashby.server.stop());

const rpc = async (method: string, body: unknown, h: Record<string, string> = headers) => {
  const response = await fetch(`${base}/${method}`, { method: 'POST', headers: h, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
};

/** Step 1 of https://developers.ashbyhq.com/docs/filecreatefileuploadhandle, with the documented metadata. */
const createHandle = (contentLength: number, fileUploadContext = 'ApplicationForm', overrides: Record<string, unknown> = {}) =>
  rpc('file.createFileUploadHandle', {
    fileUploadContext,
    fileName: 'resume.pdf',
    contentType: 'application/pdf',
    contentLength,
    ...overrides,
  });

/** Steps 1 and 2; the handle. */
async function uploaded(bytes: Buffer, context = 'ApplicationForm', name = 'resume.pdf'): Promise<string> {
  const created = await createHandle(bytes.length, context, { fileName: name });
  expect(created.status).toBe(200);
  const { handle, url, fields } = created.body.results as { handle: string; url: string; fields: Record<string, string> };
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  form.append('file', new Blob([bytes], { type: 'application/pdf' }), name);
  const stored = await fetch(url, { method: 'POST', body: form });
  expect(stored.ok).toBe(true);
  return handle;
}

describe('authentication (https://developers.ashbyhq.com/reference/authentication)', () => {
  test('no key: 401; a wrong key: 403; a key without the endpoint permission: 403 missing_endpoint_permission', async () => {
    const { Authorization: _auth, ...anonymous } = headers;
    expect((await rpc('apiKey.info', {}, anonymous)).status).toBe(401);
    expect((await rpc('apiKey.info', {}, { ...headers, Authorization: basic('not-a-key') })).status).toBe(403);
    ashby.boards.set('readonly', ashbyBoard('readonly', { scopes: ['jobsRead'] }));
    const denied = await rpc('apiKey.info', {}, { ...headers, Authorization: basic('ashby-key-readonly') });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ success: false, errorInfo: { code: 'missing_endpoint_permission' } });
  });

  test('an undocumented method is 404', async () => {
    expect((await rpc('application.createFromForm', {})).status).toBe(404);
  });
});

describe('apiKey.info (https://developers.ashbyhq.com/reference/api-key)', () => {
  test('answers success with the key’s information and, as the reference page shows, no scopes list', async () => {
    const info = await rpc('apiKey.info', {});
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({ success: true, results: { title: expect.any(String), createdAt: expect.any(String) } });
    expect(info.body.results.scopes).toBeUndefined();
  });
});

describe('public job board (https://developers.ashbyhq.com/docs/public-job-posting-api)', () => {
  test('GET /posting-api/job-board/{name}: {apiVersion: "1", jobs}; an unknown board 404', async () => {
    const response = await fetch(`${base}/posting-api/job-board/examples?includeCompensation=true`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { apiVersion: string; jobs: Record<string, unknown>[] };
    expect(body.apiVersion).toBe('1');
    expect(body.jobs[0]).toMatchObject({ title: 'Software Engineer', isListed: true, jobUrl: expect.stringContaining(POSTING) });
    expect((await fetch(`${base}/posting-api/job-board/nope`)).status).toBe(404);
  });
});

describe('presigned uploads (https://developers.ashbyhq.com/docs/filecreatefileuploadhandle)', () => {
  test('createFileUploadHandle answers {handle, url, fields}; fileUploadContext must be one of the three documented values', async () => {
    const created = await createHandle(10);
    expect(created.body).toMatchObject({
      success: true,
      results: { handle: expect.any(String), url: expect.stringMatching(/^https?:\/\//), fields: expect.any(Object) },
    });
    const wrong = await createHandle(10, 'Application');
    expect(wrong.body).toMatchObject({ success: false, errorInfo: { code: 'invalid_input' } });
    const noName = await createHandle(1, 'ApplicationForm', { fileName: undefined });
    expect(noName.body).toMatchObject({ success: false, errorInfo: { code: 'invalid_input' } });
  });

  test('the storage takes the file only with every returned field and the declared size', async () => {
    const created = await createHandle(4);
    const { url, fields } = created.body.results as { url: string; fields: Record<string, string> };
    const post = async (withFields: Record<string, string>, bytes: Buffer) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(withFields)) form.append(k, v);
      form.append('file', new Blob([bytes]), 'resume.pdf');
      return (await fetch(url, { method: 'POST', body: form })).status;
    };
    const { 'x-amz-signature': _signature, ...unsigned } = fields;
    expect(await post(unsigned, Buffer.from('%PDF'))).toBe(403);
    expect(await post(fields, Buffer.from('%PDF-1.5 and more'))).toBe(400);
    expect(await post(fields, Buffer.from('%PDF'))).toBe(204);
  });
});

describe('applicationForm.submit (https://developers.ashbyhq.com/docs/applicationformsubmit)', () => {
  const fieldSubmissions = (resume: unknown, email = 'grace@example.com') => [
    { path: '_systemfield_name', value: 'Grace Hopper' },
    { path: '_systemfield_email', value: email },
    { path: '_systemfield_resume', value: resume },
  ];

  test('JSON with the handle of an uploaded ApplicationForm file: success, submittedValues keyed by field path', async () => {
    const handle = await uploaded(Buffer.from('%PDF-1.5\n%%EOF'));
    const answer = await rpc('applicationForm.submit', {
      jobPostingId: POSTING,
      applicationForm: { fieldSubmissions: fieldSubmissions(handle) },
    });
    expect(answer.status).toBe(200);
    expect(answer.body.success).toBe(true);
    // https://developers.ashbyhq.com/changelog/2026-08-18-recommend-presigned-uploads-for-application-form-submit:
    // "recorded responses come back in a submittedValues object keyed by field path, not an array".
    const instance = answer.body.results.submittedFormInstance as { id: string; submittedValues: Record<string, unknown> };
    expect(instance.id).toEqual(expect.any(String));
    expect(Array.isArray(instance.submittedValues)).toBe(false);
    expect(instance.submittedValues._systemfield_email).toBe('grace@example.com');
  });

  test('multipart still works ("remains supported"): the file as a part named by its field value', async () => {
    const form = new FormData();
    form.append('jobPostingId', POSTING);
    form.append('applicationForm', JSON.stringify({ fieldSubmissions: fieldSubmissions('resume_1', 'multi@example.com') }));
    form.append('resume_1', new Blob([Buffer.from('%PDF-1.5\n%%EOF')], { type: 'application/pdf' }), 'resume.pdf');
    const { 'Content-Type': _json, ...multipart } = headers;
    const response = await fetch(`${base}/applicationForm.submit`, { method: 'POST', headers: multipart, body: form });
    expect(((await response.json()) as { success: boolean }).success).toBe(true);
  });

  test('JSON refuses a multipart-style reference, a handle of another context and a handle never uploaded (success: false, invalid_input)', async () => {
    const resumeContext = await uploaded(Buffer.from('%PDF-1.5\n%%EOF'), 'CandidateResume');
    const notUploaded = (await createHandle(3)).body.results.handle as string;
    for (const value of ['file_1', resumeContext, notUploaded]) {
      const answer = await rpc('applicationForm.submit', {
        jobPostingId: POSTING,
        applicationForm: { fieldSubmissions: fieldSubmissions(value, 'refused@example.com') },
      });
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ success: false, errorInfo: { code: 'invalid_input' } });
    }
  });

  test('the documented test address fails validation: success false', async () => {
    const handle = await uploaded(Buffer.from('%PDF-1.5\n%%EOF'));
    const answer = await rpc('applicationForm.submit', {
      jobPostingId: POSTING,
      applicationForm: { fieldSubmissions: fieldSubmissions(handle, 'testing-fail-validation@example.com') },
    });
    expect(answer.body.success).toBe(false);
  });
});
