/**
 * The Teamtailor connector straight against its simulator: the credentials check, the region's host, paging
 * (jobs and every page of picked questions), the mapping of jobs and questions, the application's four requests
 * (merge, files as presigned S3 URLs of fauxqs that the simulator downloads, typed answers), pacing by the
 * rate-limit headers, file limits, and the mapping of Teamtailor's answers onto our error kinds (P277).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type { CompanyRecord } from '#companies/company-schema.js';
import { ATTACHMENT_URL_MAX_SECONDS, attachmentUrl } from '#applications/attachments.js';
import type { Submission } from '#delivery/connectors/connector.js';
import { resetClients, s3 } from '#platform/clients.js';
import { startFauxqsOnLoopback } from '../../local/emulators.js';
import {
  TEAMTAILOR_NA_API_URL,
  teamtailorApplicationDocuments,
  teamtailorBaseUrl,
  teamtailorConnector,
} from '#delivery/connectors/teamtailor.js';
import { rejection, submissionFactory } from '../helpers/submissions.js';
import { withoutPacing, startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startTeamtailorSimulator, type TeamtailorAccount, type TeamtailorSimulator } from '../simulators/teamtailor.js';

withoutPacing();

const PDF = Buffer.from('%PDF-1.5\nteamtailor edge\n%%EOF');
const company = { id: 1, ats: 'teamtailor' } as CompanyRecord;

let sim: TeamtailorSimulator;
let odd: SimulatorServer;
let oddReply: { status: number; body?: unknown; headers?: Record<string, string> } = { status: 200, body: {} };
let account: TeamtailorAccount;
const credentials = { api_key: 'tt-edge-admin-key', region: 'eu' };

const plainSubmission = submissionFactory({
  company,
  pdf: PDF,
  jobExternalId: '501',
  candidate: { email: 'ada.edge@example.com', first_name: 'Ada', last_name: 'Lovelace' },
});
let fauxqs: Awaited<ReturnType<typeof startFauxqsOnLoopback>>;
let stored = 0;

/** Each file as sync.ts hands it over: stored in (fauxqs') S3, with `url()` presigning its object. */
const submission = (overrides?: Partial<Submission>, files?: Parameters<typeof plainSubmission>[1]): Submission => {
  const made = plainSubmission(overrides, files);
  return {
    ...made,
    attachments: made.attachments.map((a) => ({
      ...a,
      url: async () => {
        const chunks: Buffer[] = [];
        for await (const chunk of await a.open()) chunks.push(chunk as Buffer);
        const key = `companies/1/applications/1/${++stored}`;
        await s3().send(
          new PutObjectCommand({ Bucket: process.env.BUCKET_NAME, Key: key, Body: Buffer.concat(chunks), ContentType: a.content_type }),
        );
        return attachmentUrl(key);
      },
    })),
  };
};

const s3Dir = mkdtempSync(join(tmpdir(), 'tt-s3-'));

beforeAll(async () => {
  [sim, odd, fauxqs] = await Promise.all([
    startTeamtailorSimulator(),
    startSimulatorServer(() => ({ status: oddReply.status, body: oddReply.body, headers: oddReply.headers })),
    startFauxqsOnLoopback({ port: 0, logger: false, s3StorageDir: s3Dir }),
  ]);
  Object.assign(process.env, sim.env, {
    AWS_ENDPOINT_URL_S3: `http://127.0.0.1:${fauxqs.port}`,
    BUCKET_NAME: 'teamtailor-test-bucket',
    TABLE_NAME: process.env.TABLE_NAME ?? 'teamtailor-test-table-unused',
  });
  resetClients();
  await s3().send(new CreateBucketCommand({ Bucket: 'teamtailor-test-bucket' }));
  account = {
    apiKey: credentials.api_key,
    scope: 'admin',
    permission: 'read-write',
    jobs: [
      {
        id: '501',
        title: 'Backend Developer',
        body: '<p>Write Ruby</p>',
        employmentType: 'parttime',
        remoteStatus: 'fully',
        location: { id: '9', name: 'Stockholm HQ', city: 'Stockholm', country: 'Sweden', address: 'Sveavägen 1', zip: '111 57' },
        department: { id: '3', name: 'Product' },
        salary: { min: 40000, max: 55000, currency: 'SEK', unit: 'monthly' },
        questions: [
          { id: '31', title: 'Work permit?', type: 'Boolean', mandatory: true },
          {
            id: '32',
            title: 'Languages',
            type: 'Choice',
            multiple: true,
            alternatives: [
              { id: 'a1', title: 'Swedish' },
              { id: 'a2', title: 'English' },
            ],
          },
          { id: '33', title: 'Years of Ruby', type: 'Range' },
          { id: '34', title: 'Tell us more', type: 'Text' },
          { id: '35', title: 'Your city', type: 'Text', singleLine: true },
          { id: '36', title: 'A video', type: 'Video' },
        ],
      },
      { id: '502', title: 'Office Manager', body: '<p>Run things</p>' },
      { id: '503', title: 'Archived Job', body: '<p>Old</p>', status: 'archived' },
    ],
  };
  sim.accounts.push(account);
});
afterAll(async () => {
  delete process.env.AWS_ENDPOINT_URL_S3;
  delete process.env.BUCKET_NAME;
  if (process.env.TABLE_NAME === 'teamtailor-test-table-unused') delete process.env.TABLE_NAME;
  resetClients();
  await Promise.all([sim.server.stop(), odd.stop(), fauxqs.stop()]);
  rmSync(s3Dir, { recursive: true, force: true });
});

describe('credentials check', () => {
  test('an Admin key is accepted with two reads; nothing is created', async () => {
    const before = sim.server.requests.length;
    const candidates = sim.candidates.length;
    await expect(teamtailorConnector.validateCredentials(credentials, company)).resolves.toBeUndefined();
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => [r.method, r.path, r.query.get('page[size]')])).toEqual([
      ['GET', '/teamtailor/v1/jobs', '1'],
      ['GET', '/teamtailor/v1/candidates', '1'],
    ]);
    expect(sim.candidates.length).toBe(candidates);
    expect(made.every((r) => r.method === 'GET')).toBe(true);
  });

  test('a wrong key is credentials_rejected naming api_key, and the key is not in the message', async () => {
    const error = await rejection(teamtailorConnector.validateCredentials({ api_key: 'tt-wrong-key-777', region: 'eu' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
    expect(error.message).toContain('401');
    expect(error.message).not.toContain('tt-wrong-key-777');
  });

  test('a key without the Admin scope reads jobs but not candidates: credentials_rejected (403) naming api_key', async () => {
    sim.accounts.push({ apiKey: 'tt-public-key-1', scope: 'public', permission: 'read', jobs: account.jobs });
    const error = await rejection(teamtailorConnector.validateCredentials({ api_key: 'tt-public-key-1', region: 'eu' }, company));
    expect(error).toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
    expect(error.message).toContain('403');
  });

  test('an unreachable Teamtailor is transient', async () => {
    process.env.TEAMTAILOR_API_URL = 'http://127.0.0.1:9';
    try {
      await expect(teamtailorConnector.validateCredentials(credentials, company)).rejects.toMatchObject({ kind: 'transient' });
    } finally {
      Object.assign(process.env, sim.env);
    }
  });

  test('the region picks the host when TEAMTAILOR_API_URL is not set; a set value wins', () => {
    delete process.env.TEAMTAILOR_API_URL;
    try {
      expect(teamtailorBaseUrl({ api_key: 'k', region: 'eu' })).toBe('https://api.teamtailor.com');
      expect(teamtailorBaseUrl({ api_key: 'k' })).toBe('https://api.teamtailor.com');
      expect(teamtailorBaseUrl({ api_key: 'k', region: 'na' })).toBe(TEAMTAILOR_NA_API_URL);
    } finally {
      Object.assign(process.env, sim.env);
    }
    expect(teamtailorBaseUrl({ api_key: 'k', region: 'na' })).toBe(sim.env.TEAMTAILOR_API_URL);
  });
});

describe('jobs', () => {
  test('pages are followed until links.next is gone; only published jobs; the maximum page size by default', async () => {
    process.env.TEAMTAILOR_PAGE_SIZE = '1';
    const before = sim.server.requests.length;
    try {
      const jobs = await teamtailorConnector.listPublishedJobs(company, credentials);
      expect(jobs!.map((j) => j.external_id)).toEqual(['501', '502']);
    } finally {
      delete process.env.TEAMTAILOR_PAGE_SIZE;
    }
    const lists = sim.server.requests.slice(before).filter((r) => r.path === '/teamtailor/v1/jobs');
    expect(lists.map((r) => [r.query.get('page[number]'), r.query.get('page[size]'), r.query.get('filter[status]')])).toEqual([
      ['1', '1', 'published'],
      ['2', '1', 'published'],
    ]);
    const start = sim.server.requests.length;
    await teamtailorConnector.listPublishedJobs(company, credentials);
    const again = sim.server.requests.slice(start).filter((r) => r.path === '/teamtailor/v1/jobs');
    expect(again.map((r) => r.query.get('page[size]'))).toEqual(['30']);
    expect(again[0].query.get('include')).toBe('department,locations');
  });

  test('a job maps its attributes, included location and department, career-site links and picked questions', async () => {
    const jobs = await teamtailorConnector.listPublishedJobs(company, credentials);
    const job = jobs!.find((j) => j.external_id === '501')!;
    expect(job).toMatchObject({
      title: 'Backend Developer',
      description: '<p>Write Ruby</p>',
      posting_url: 'https://acme.teamtailor.com/jobs/501-backend-developer',
      application_url: 'https://acme.teamtailor.com/jobs/501/applications/new',
      location_name: 'Stockholm HQ',
      city: 'Stockholm',
      country: 'Sweden',
      street: 'Sveavägen 1',
      postcode: '111 57',
      remote: 'remote',
      employment_type: 'permanent',
      work_schedule: 'part_time',
      salary_from: 40000,
      salary_to: 55000,
      salary_currency: 'SEK',
      salary_frequency: 'monthly',
      custom_fields: { department: 'Product', human_status: 'published' },
      import_source: 'api',
    });
    expect(job.description_sections).toEqual([
      { id: 'pitch', type: 'text', title: 'Pitch', content: 'Join us as Backend Developer.', order: 1 },
      { id: 'body', type: 'html', title: 'Description', content: '<p>Write Ruby</p>', order: 2 },
    ]);
    expect(job.screening_questions).toEqual([
      { id: '31', question: 'Work permit?', answer_type: 'boolean', required: true, options: [] },
      {
        id: '32',
        question: 'Languages',
        answer_type: 'multi_select',
        required: false,
        options: [
          { label: 'Swedish', value: 'a1' },
          { label: 'English', value: 'a2' },
        ],
      },
      { id: '33', question: 'Years of Ruby', answer_type: 'number', required: false, options: [] },
      { id: '34', question: 'Tell us more', answer_type: 'textarea', required: false, options: [] },
      { id: '35', question: 'Your city', answer_type: 'text', required: false, options: [] },
      { id: '36', question: 'A video', answer_type: 'file', required: false, options: [] },
    ]);
    expect(job.application_form_fields!.map((f) => [f.name, f.type, f.required, f.order])).toEqual([
      ['question_31', 'boolean', true, 1],
      ['question_32', 'multi_select', false, 2],
      ['question_33', 'number', false, 3],
      ['question_34', 'textarea', false, 4],
      ['question_35', 'text', false, 5],
      ['question_36', 'file', false, 6],
    ]);
    expect(job.raw_values).toMatchObject({ id: '501', type: 'jobs', attributes: { title: 'Backend Developer' } });
    const plain = jobs!.find((j) => j.external_id === '502')!;
    expect(plain).toMatchObject({ remote: 'hybrid', city: null, location_name: null, screening_questions: [] });
  });

  test('every page of a job’s picked questions is read from /v1/picked-questions: the 11th question is kept', async () => {
    const questions = Array.from({ length: 11 }, (_, i) => ({ id: String(900 + i), title: `Question ${i + 1}`, type: 'Text' as const }));
    account.jobs.push({ id: '504', title: 'Many Questions', body: '<p>Q</p>', questions });
    process.env.TEAMTAILOR_PAGE_SIZE = '10';
    const before = sim.server.requests.length;
    try {
      const jobs = await teamtailorConnector.listPublishedJobs(company, credentials);
      const many = jobs!.find((j) => j.external_id === '504')!;
      expect(many.screening_questions!.map((q) => q.id)).toEqual(questions.map((q) => q.id));
    } finally {
      delete process.env.TEAMTAILOR_PAGE_SIZE;
      account.jobs.pop();
    }
    const reads = sim.server.requests
      .slice(before)
      .filter((r) => r.path === '/teamtailor/v1/picked-questions' && r.query.get('filter[job]') === '504');
    expect(reads.map((r) => [r.query.get('page[number]'), r.query.get('page[size]'), r.query.get('include')])).toEqual([
      ['1', '10', 'question'],
      ['2', '10', 'question'],
    ]);
    expect(sim.server.requests.slice(before).some((r) => /\/jobs\/[^/]+\/picked-questions$/.test(r.path))).toBe(false);
  });

  test('a malformed feed is invalid_data', async () => {
    for (const body of ['{"data": {"type": "jobs"}}', '{"data": [{"type": "jobs"}]}', 'not json']) {
      account.listOverride = body;
      try {
        await expect(teamtailorConnector.listPublishedJobs(company, credentials)).rejects.toMatchObject({ kind: 'invalid_data' });
      } finally {
        account.listOverride = undefined;
      }
    }
  });
});

describe('applications', () => {
  test('candidate (merge), uploads, typed answers, job application; the id is the job application’s', async () => {
    const before = sim.server.requests.length;
    const result = await teamtailorConnector.submitApplication(
      submission(
        {
          notes: 'Available from May.',
          socialLinks: { linkedin: 'https://www.linkedin.com/in/ada', github: 'https://github.com/ada' },
          screeningAnswers: [
            { id: '31', answer_type: 'boolean', answer: 'yes' },
            { id: '32', answer_type: 'multi_select', answer: 'a1, a2' },
            { id: '33', answer_type: 'number', answer: '7' },
            { id: '34', answer_type: 'textarea', answer: 'Engines.' },
          ],
        },
        [
          { name: 'cv.pdf' },
          { name: 'cert.png', type: 'certificate', content_type: 'image/png', bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47]) },
        ],
      ),
      credentials,
    );
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => r.path.replace('/teamtailor/v1/', ''))).toEqual([
      'candidates',
      'uploads',
      'answers',
      'answers',
      'answers',
      'answers',
      'job-applications',
    ]);
    const application = sim.applications.find((a) => a.id === result.externalId)!;
    expect(application).toMatchObject({ jobId: '501', attributes: { sourced: false, 'cover-letter': 'Available from May.' } });
    const candidate = sim.candidates.find((c) => c.id === application.candidateId)!;
    expect(candidate.attributes).toMatchObject({ 'linkedin-url': 'https://www.linkedin.com/in/ada' });
    expect(candidate.attributes).not.toHaveProperty('sourced');
    expect(candidate.resume!.bytes).toEqual(PDF);
    // The files went as presigned GET URLs of their stored objects (fauxqs), which the simulator downloaded.
    const urls = sim.downloads.slice(-2).map((u) => new URL(u));
    for (const url of urls) {
      expect(url.origin).toBe(process.env.AWS_ENDPOINT_URL_S3);
      expect(url.pathname).toMatch(/^\/teamtailor-test-bucket\/companies\/1\/applications\/1\/\d+$/);
      expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
      expect(url.searchParams.get('X-Amz-SignedHeaders')).toBe('host');
      expect(Number(url.searchParams.get('X-Amz-Expires'))).toBeLessThanOrEqual(ATTACHMENT_URL_MAX_SECONDS);
    }
    expect(urls[0].pathname).not.toBe(urls[1].pathname);
    const uploadPost = made.find((r) => r.path.endsWith('/uploads'))!;
    expect((JSON.parse(uploadPost.body.toString('utf8')) as { data: unknown }).data).toMatchObject({
      relationships: { candidate: { data: { type: 'candidates', id: candidate.id } }, job: { data: { type: 'jobs', id: '501' } } },
    });
    expect(sim.uploads.filter((u) => u.candidateId === candidate.id).map((u) => [u.file.filename, u.file.bytes])).toEqual([
      ['cert.png', Buffer.from([0x89, 0x50, 0x4e, 0x47])],
    ]);
    expect(sim.answers.filter((a) => a.candidateId === candidate.id).map((a) => [a.questionId, a.attributes])).toEqual([
      ['31', { boolean: true }],
      ['32', { choices: ['a1', 'a2'] }],
      ['33', { range: 7 }],
      ['34', { text: 'Engines.' }],
    ]);
  });

  test('merge: the same person applying to a second job is one candidate with two applications', async () => {
    const candidate = { email: 'merge.me@example.com', full_name: 'Merge Me' };
    const first = await teamtailorConnector.submitApplication(submission({ candidate, jobExternalId: '501' }), credentials);
    const second = await teamtailorConnector.submitApplication(submission({ candidate, jobExternalId: '502' }), credentials);
    const apps = sim.applications.filter((a) => a.id === first.externalId || a.id === second.externalId);
    expect(apps.map((a) => a.jobId)).toEqual(['501', '502']);
    expect(apps[0].candidateId).toBe(apps[1].candidateId);
    expect(sim.candidates.filter((c) => c.attributes.email === 'merge.me@example.com')).toHaveLength(1);
  });

  test('every request names the key, the API version and the JSON:API media type', async () => {
    const before = sim.server.requests.length;
    await teamtailorConnector.submitApplication(
      submission({ candidate: { email: 'headers@example.com', full_name: 'H Eaders' } }),
      credentials,
    );
    for (const request of sim.server.requests.slice(before)) {
      expect(request.headers).toMatchObject({
        authorization: `Token token=${credentials.api_key}`,
        'x-api-version': '20161108',
        'content-type': 'application/vnd.api+json',
        accept: 'application/vnd.api+json',
      });
    }
  });

  test('a file over 10 MB, an empty one, or one without an http(s) URL is attachment_rejected before anything is sent', async () => {
    const before = sim.server.requests.length;
    const big = await rejection(
      teamtailorConnector.submitApplication(submission({}, [{ name: 'huge-cv-of-ada.pdf', size: 10 * 1024 * 1024 + 1 }]), credentials),
    );
    expect(big.kind).toBe('attachment_rejected');
    expect(big.message).not.toContain('huge-cv-of-ada');
    const empty = await rejection(
      teamtailorConnector.submitApplication(submission({}, [{ name: 'cv.pdf', bytes: Buffer.alloc(0) }]), credentials),
    );
    expect(empty.kind).toBe('attachment_rejected');
    // Without a URL (storage that cannot presign) or with another scheme, Teamtailor cannot take the file.
    const bare = plainSubmission({}, [{ name: 'cv.pdf' }]);
    expect((await rejection(teamtailorConnector.submitApplication(bare, credentials))).kind).toBe('attachment_rejected');
    const dataUri = plainSubmission({}, [{ name: 'cv.pdf' }]);
    dataUri.attachments[0].url = async () => `data:application/pdf;base64,${PDF.toString('base64')}`;
    const refused = await rejection(teamtailorConnector.submitApplication(dataUri, credentials));
    expect(refused.kind).toBe('attachment_rejected');
    expect(refused.message).not.toContain('data:');
    expect(sim.server.requests.length).toBe(before);
  });

  test('every attachment type goes (extra CVs as uploads); one Teamtailor refuses is attachment_rejected at its url', async () => {
    const sent = await teamtailorConnector.submitApplication(
      submission({ candidate: { email: 'all.files@example.com', full_name: 'All Files' } }, [
        { name: 'cv.pdf' },
        { name: 'cv-en.docx', content_type: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document' },
        { name: 'letter.pdf', type: 'cover_letter' },
        { name: 'photo.jpg', type: 'photo', content_type: 'image/jpeg', bytes: Buffer.from([0xff, 0xd8, 0xff, 0xe0]) },
        { name: 'notes.txt', type: 'other', content_type: 'text/plain', bytes: Buffer.from('notes') },
      ]),
      credentials,
    );
    const candidateId = sim.applications.find((a) => a.id === sent.externalId)!.candidateId;
    expect(sim.candidates.find((c) => c.id === candidateId)!.resume!.bytes).toEqual(PDF);
    expect(sim.uploads.filter((u) => u.candidateId === candidateId).map((u) => u.file.filename)).toEqual([
      'cv-en.docx',
      'letter.pdf',
      'photo.jpg',
      'notes.txt',
    ]);
    // Teamtailor documents no list of types: a type its downloader refuses (the simulator's knob) is a clear refusal.
    const error = await rejection(
      teamtailorConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }, { name: 'work.exe', type: 'work_sample' }]), credentials),
    );
    expect(error).toMatchObject({ kind: 'attachment_rejected' });
    expect(error.message).toContain('/data/attributes/url');
    expect(error.message).not.toMatch(/X-Amz|work\.exe/);
  });

  test('a file Teamtailor itself refuses (422 at the resume) is attachment_rejected, never dropped', async () => {
    sim.maxFileBytes = 10;
    try {
      const error = await rejection(teamtailorConnector.submitApplication(submission({}, [{ name: 'cv.pdf' }]), credentials));
      expect(error).toMatchObject({ kind: 'attachment_rejected' });
      expect(error.message).toContain('/data/attributes/resume');
    } finally {
      sim.maxFileBytes = 10 * 1024 * 1024;
    }
  });

  test('a job that is archived or unknown is job_not_published; a second application to the job is duplicate', async () => {
    await expect(teamtailorConnector.submitApplication(submission({ jobExternalId: '503' }), credentials)).rejects.toMatchObject({
      kind: 'job_not_published',
    });
    await expect(teamtailorConnector.submitApplication(submission({ jobExternalId: '999' }), credentials)).rejects.toMatchObject({
      kind: 'job_not_published',
    });
    const candidate = { email: 'twice@example.com', full_name: 'Twice Over' };
    await teamtailorConnector.submitApplication(submission({ candidate }), credentials);
    const error = await rejection(teamtailorConnector.submitApplication(submission({ candidate }), credentials));
    expect(error.kind).toBe('duplicate');
    expect(error.message).not.toContain('twice@example.com');
  });

  test('an answer to a question Teamtailor does not know is invalid_data; a read-only key is credentials_rejected', async () => {
    await expect(
      teamtailorConnector.submitApplication(
        submission({ screeningAnswers: [{ id: '777', answer_type: 'text', answer: 'x' }] }),
        credentials,
      ),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    sim.accounts.push({ apiKey: 'tt-admin-read-only', scope: 'admin', permission: 'read', jobs: account.jobs });
    await expect(
      teamtailorConnector.validateCredentials({ api_key: 'tt-admin-read-only', region: 'eu' }, company),
    ).resolves.toBeUndefined();
    await expect(
      teamtailorConnector.submitApplication(submission(), { api_key: 'tt-admin-read-only', region: 'eu' }),
    ).rejects.toMatchObject({ kind: 'credentials_rejected', field: 'api_key' });
  });

  test('429 is rate_limited with X-Rate-Limit-Reset as the wait; Retry-After wins when given', async () => {
    sim.rateLimitNext = 1;
    sim.rateLimitResetSeconds = 7;
    const error = await rejection(teamtailorConnector.submitApplication(submission(), credentials));
    expect(error).toMatchObject({ kind: 'rate_limited', retryAfterSeconds: 7 });
    process.env.TEAMTAILOR_API_URL = odd.url;
    try {
      oddReply = { status: 429, body: { errors: [{ status: '429' }] }, headers: { 'Retry-After': '3', 'X-Rate-Limit-Reset': '9' } };
      await expect(teamtailorConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({
        kind: 'rate_limited',
        retryAfterSeconds: 3,
      });
    } finally {
      Object.assign(process.env, sim.env);
    }
  });

  test('pacing by the headers: when X-Rate-Limit-Remaining reaches 0 the next request waits for X-Rate-Limit-Reset', async () => {
    const paced = { api_key: 'tt-paced-admin-key', region: 'eu' };
    sim.accounts.push({ apiKey: paced.api_key, scope: 'admin', permission: 'read-write', jobs: [] });
    sim.limitPer10s = 3;
    sim.windowMs = 1500;
    const before = sim.server.requests.length;
    try {
      // Four reads: at 4 a second they would all fall within the 1.5 s window, the fourth above its limit of 3.
      await teamtailorConnector.validateCredentials(paced, company);
      await teamtailorConnector.validateCredentials(paced, company);
    } finally {
      sim.limitPer10s = 50;
      sim.windowMs = 10_000;
    }
    const made = sim.server.requests.slice(before);
    expect(made.map((r) => r.status)).toEqual([200, 200, 200, 200]);
  });

  test.each([
    ['503', 'transient', { status: 503, body: {} }],
    ['201 without an id', 'transient', { status: 201, body: { data: {} } }],
    ['400', 'invalid_data', { status: 400, body: { errors: [{ status: '400', title: 'Param not allowed' }] } }],
    ['406 (no API version)', 'invalid_data', { status: 406, body: { errors: [{ status: '406' }] } }],
    ['413', 'attachment_rejected', { status: 413, body: {} }],
  ])('%s → %s', async (_name, kind, reply) => {
    process.env.TEAMTAILOR_API_URL = odd.url;
    oddReply = reply;
    try {
      await expect(teamtailorConnector.submitApplication(submission(), credentials)).rejects.toMatchObject({ kind });
    } finally {
      Object.assign(process.env, sim.env);
    }
  });
});

test('a presigned attachment URL names its one object and never lives longer than an hour; fauxqs serves it', async () => {
  await s3().send(new PutObjectCommand({ Bucket: 'teamtailor-test-bucket', Key: 'companies/9/applications/9/one', Body: PDF }));
  for (const [asked, signed] of [
    [7200, '3600'],
    [60, '60'],
  ] as const) {
    const url = new URL(await attachmentUrl('companies/9/applications/9/one', asked));
    expect(url.searchParams.get('X-Amz-Expires')).toBe(signed);
    expect(url.pathname).toBe('/teamtailor-test-bucket/companies/9/applications/9/one');
    expect(Buffer.from(await (await fetch(url)).arrayBuffer())).toEqual(PDF);
  }
});

test('the documents: a one-word name goes as both names; no files, answers or notes: only the candidate and the application', async () => {
  const documents = await teamtailorApplicationDocuments(
    submission({ candidate: { email: 'cher@example.com', full_name: 'Cher' }, screeningAnswers: [{ id: 'not-a-number', answer: 'x' }] }),
  );
  expect(documents).toEqual({
    candidate: {
      data: {
        type: 'candidates',
        attributes: { 'first-name': 'Cher', 'last-name': 'Cher', email: 'cher@example.com', merge: true },
      },
    },
    uploads: [],
    answers: [],
    application: { attributes: { sourced: false } },
  });
});
