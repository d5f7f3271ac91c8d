/**
 * The Teamtailor simulator checked against the vendor, not against our connector (issue 41 item 3, P277): the
 * documented example requests of docs.teamtailor.com (github.com/Teamtailor/docs, source/includes/<resource>/),
 * rebuilt from the fields those pages document, go straight to the simulator with fetch, and its answers must
 * be what the pages show (status, body shape). The shapes our connector used to send (data: URIs, `number` and
 * `date` answers, a read-only `sourced` on the candidate, no X-Api-Version) must be refused as the rules in
 * test/simulators/teamtailor-rules.ts say (status and JSON:API error body).
 */
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';
import { startTeamtailorSimulator, type TeamtailorSimulator } from '../simulators/teamtailor.js';

const KEY = 'abc123abc123';
const PDF = Buffer.from('%PDF-1.5\nvendor example\n%%EOF');
let sim: TeamtailorSimulator;
let files: SimulatorServer;

beforeAll(async () => {
  [sim, files] = await Promise.all([
    startTeamtailorSimulator(),
    // "https://my.fileurl.com/testfile.pdf" of the uploads example, on loopback.
    startSimulatorServer((req) =>
      req.path === '/testfile.pdf'
        ? { status: 200, raw: PDF.toString('latin1'), headers: { 'Content-Type': 'application/pdf' } }
        : { status: 404 },
    ),
  ]);
  sim.accounts.push({
    apiKey: KEY,
    scope: 'admin',
    permission: 'read-write',
    jobs: [
      {
        id: '12345',
        title: 'Marketing Manager',
        body: '<p>Job body HTML goes here.</p>',
        questions: [
          { id: '6039', title: 'Languages', type: 'Choice', multiple: true, alternatives: [] },
          { id: '44221', title: 'Have you ever worked with sales before?', type: 'Boolean' },
          { id: '44222', title: 'Years of sales', type: 'Range' },
          ...Array.from({ length: 9 }, (_, i) => ({ id: String(50000 + i), title: `Question ${i}`, type: 'Text' as const })),
        ],
      },
    ],
  });
});
afterAll(() => Promise.all([sim.server.stop(), files.stop()]));

const url = (path: string) => `${sim.env.TEAMTAILOR_API_URL}${path}`;
/** The headers every documented example sends (Authentication, Versioning sections). */
const headers = (extra: Record<string, string> = {}) => ({
  Authorization: `Token token=${KEY}`,
  'X-Api-Version': '20161108',
  'Content-Type': 'application/vnd.api+json',
  ...extra,
});
const post = async (path: string, body: unknown, extra?: Record<string, string>) => {
  const response = await fetch(url(path), { method: 'POST', headers: headers(extra), body: JSON.stringify(body) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};
const get = async (path: string, extra?: Record<string, string>) => {
  const response = await fetch(url(path), { headers: headers(extra) });
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
};
/** POST /v1/candidates with these attributes (https://docs.teamtailor.com/#create-candidate). */
const postCandidate = (attributes: Record<string, unknown>) => post('/v1/candidates', { data: { type: 'candidates', attributes } });
const jsonApiError = (status: number, pointer?: string) => ({
  errors: [expect.objectContaining({ status: String(status), title: expect.any(String), ...(pointer ? { source: { pointer } } : {}) })],
});

let candidateId: string;

describe('the documented examples', () => {
  // https://docs.teamtailor.com/#create-candidate (source/includes/candidates/_create.md.erb)
  test('Create candidate: 201 with the candidate resource; the resume a public URL that is downloaded', async () => {
    const created = await postCandidate({
      'first-name': 'Jonas',
      'last-name': 'Brusman',
      pitch: 'Lorem ipsum dolor sit amet, consectetur adipiscing elit.',
      email: 'jonas@example.com',
      resume: `${files.url}/testfile.pdf`,
      merge: true,
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: expect.any(String), type: 'candidates', attributes: { email: 'jonas@example.com' } });
    candidateId = created.body.data.id;
    expect(sim.candidates.find((c) => c.id === candidateId)!.resume!.bytes).toEqual(PDF);
    // https://docs.teamtailor.com/#versioning: the used version comes back; https://docs.teamtailor.com/#rate-limit headers.
    expect(created.headers.get('x-api-version')).toBe('20161108');
    for (const name of ['x-rate-limit-limit', 'x-rate-limit-remaining', 'x-rate-limit-reset'])
      expect(created.headers.get(name)).toMatch(/^\d+$/);
  });

  // https://docs.teamtailor.com/#create-a-upload (source/includes/uploads/_create.md.erb)
  test('Create a upload: 201 with url, file-name and internal', async () => {
    const created = await post('/v1/uploads', {
      data: {
        type: 'uploads',
        attributes: { url: `${files.url}/testfile.pdf`, 'file-name': 'testfile.pdf' },
        relationships: { candidate: { data: { id: candidateId, type: 'candidates' } } },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      id: expect.any(String),
      type: 'uploads',
      attributes: { url: expect.stringMatching(/^http/), 'file-name': 'testfile.pdf', internal: false },
    });
  });

  // https://docs.teamtailor.com/#create-answer (source/includes/answers/_create.md.erb)
  test('Create Answer: 201 with boolean, choices, range, text and video-token', async () => {
    const created = await post('/v1/answers', {
      data: {
        type: 'answers',
        attributes: { choices: [3, 4] },
        relationships: {
          candidate: { data: { id: candidateId, type: 'candidates' } },
          question: { data: { id: '6039', type: 'questions' } },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      type: 'answers',
      attributes: { boolean: null, choices: [3, 4], range: null, text: null, 'video-token': null, 'updated-at': expect.any(String) },
    });
  });

  // https://docs.teamtailor.com/#create-job-application (source/includes/job_applications/_create.md.erb)
  test('Create Job application: 201 with the job application resource', async () => {
    const created = await post('/v1/job-applications', {
      data: {
        type: 'job-applications',
        attributes: {
          'cover-letter': "Hi, I'm a driven developer looking for new opportunities…",
          sourced: true,
          'send-user-notifications': true,
        },
        relationships: {
          candidate: { data: { id: candidateId, type: 'candidates' } },
          job: { data: { id: '12345', type: 'jobs' } },
        },
      },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ id: expect.any(String), type: 'job-applications', attributes: { sourced: true } });
  });

  // https://docs.teamtailor.com/#pagination and https://docs.teamtailor.com/#list-picked-questions
  test('List picked questions: 10 a page by default, links.next while pages remain, meta counts; max 30', async () => {
    const first = await get('/v1/picked-questions?include=question');
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(10);
    expect(first.body.data[0]).toMatchObject({ type: 'picked-questions', attributes: { mandatory: false } });
    expect(first.body.meta).toEqual({ 'record-count': 12, 'page-count': 2 });
    expect(first.body.links.next).toMatch(/page%5Bnumber%5D=2&page%5Bsize%5D=10$/);
    const second = await get('/v1/picked-questions?include=question&page%5Bnumber%5D=2');
    expect(second.body.data).toHaveLength(2);
    expect(second.body.links.next).toBeUndefined();
    // https://docs.teamtailor.com/#questions "Question Object"
    expect(second.body.included[0]).toMatchObject({
      type: 'questions',
      attributes: { 'question-type': expect.stringMatching(/^(Boolean|Choice|Text|Range|Video)$/), title: expect.any(String) },
    });
    expect((await get('/v1/picked-questions?page%5Bsize%5D=100')).body.data).toHaveLength(12);
    expect((await get('/v1/picked-questions?page%5Bsize%5D=100')).body.meta['page-count']).toBe(1);
  });

  // The job's related link (https://docs.teamtailor.com/#jobs "Job Object": relationships.picked-questions.links.related)
  test('the job’s related picked-questions pages at 10 too: what the connector read unpaged dropped the 11th', async () => {
    const related = await get('/v1/jobs/12345/picked-questions?include=question');
    expect(related.body.data).toHaveLength(10);
    expect(related.body.links.next).toEqual(expect.any(String));
  });
});

describe('what the vendor refuses', () => {
  const answer = (attributes: Record<string, unknown>, question = '44222') => ({
    data: {
      type: 'answers',
      attributes,
      relationships: {
        candidate: { data: { id: candidateId, type: 'candidates' } },
        question: { data: { id: question, type: 'questions' } },
      },
    },
  });

  // https://docs.teamtailor.com/#versioning: "The X-Api-Version header is required" (406: assumed)
  test('a request without X-Api-Version, or with one that is no dated version, is 406 with a JSON:API error', async () => {
    const missing = await fetch(url('/v1/jobs'), { headers: { Authorization: `Token token=${KEY}` } });
    expect(missing.status).toBe(406);
    expect(await missing.json()).toEqual(jsonApiError(406));
    for (const version of ['latest', '2016-11-08', '20161399', '20150101'])
      expect((await get('/v1/jobs', { 'X-Api-Version': version })).status).toBe(406);
  });

  // https://docs.teamtailor.com/#answers: boolean, choices, range, text only (400 "Param not allowed": assumed)
  test('the old `number` and `date` answer attributes are refused: 400 Param not allowed', async () => {
    for (const attributes of [{ number: 7 }, { date: '2026-01-01' }]) {
      const refused = await post('/v1/answers', answer(attributes));
      expect(refused.status).toBe(400);
      expect(refused.body).toEqual({ errors: [expect.objectContaining({ status: '400', title: 'Param not allowed', code: '105' })] });
    }
    expect((await post('/v1/answers', answer({ range: 7 }))).status).toBe(201);
    expect((await post('/v1/answers', answer({ range: 7.5 }))).status).toBe(422);
    expect((await post('/v1/answers', answer({ text: 'yes' }, '44221'))).body).toEqual(jsonApiError(422, '/data/attributes/boolean'));
  });

  // https://docs.teamtailor.com/#create-a-upload: "A public url is required for the file" (422: assumed)
  test('a data: URI or another scheme as a file is refused at its attribute: 422', async () => {
    const dataUri = `data:application/pdf;base64,${PDF.toString('base64')}`;
    const upload = await post('/v1/uploads', {
      data: {
        type: 'uploads',
        attributes: { url: dataUri, 'file-name': 'cv.pdf' },
        relationships: { candidate: { data: { id: candidateId, type: 'candidates' } } },
      },
    });
    expect(upload.status).toBe(422);
    expect(upload.body).toEqual(jsonApiError(422, '/data/attributes/url'));
    for (const resume of [dataUri, 'file:///etc/passwd', 'ftp://example.com/cv.pdf', `${files.url}/missing.pdf`]) {
      const candidate = await postCandidate({ email: 'data.uri@example.com', 'first-name': 'D', 'last-name': 'U', resume });
      expect(candidate.status).toBe(422);
      expect(candidate.body).toEqual(jsonApiError(422, '/data/attributes/resume'));
    }
  });

  // https://docs.teamtailor.com/#candidates: `sourced` and `referred` are read only; unknown attributes (400: assumed)
  test('unknown or read-only attributes are refused: 400 Param not allowed', async () => {
    const referred = await postCandidate({ email: 'new.one@example.com', 'first-name': 'N', 'last-name': 'O', referred: true });
    expect(referred.status).toBe(400);
    expect(referred.body.errors[0]).toMatchObject({ title: 'Param not allowed', detail: 'referred is not allowed.' });
    const misnamed = await post('/v1/uploads', {
      data: {
        type: 'uploads',
        attributes: { url: `${files.url}/testfile.pdf`, filename: 'testfile.pdf' },
        relationships: { candidate: { data: { id: candidateId, type: 'candidates' } } },
      },
    });
    expect(misnamed.status).toBe(400);
  });

  // https://docs.teamtailor.com/#create-candidate: a unique email; `merge` to merge into the known candidate
  test('a known e-mail without merge is 422 at /data/attributes/email', async () => {
    const again = await postCandidate({ email: 'jonas@example.com', 'first-name': 'Jonas', 'last-name': 'Brusman' });
    expect(again.status).toBe(422);
    expect(again.body).toEqual(jsonApiError(422, '/data/attributes/email'));
  });

  // https://docs.teamtailor.com/#rate-limit (headers) and the help centre's 50 per 10 s (assumed numbers)
  test('above 50 requests in 10 seconds: 429 with X-Rate-Limit-Remaining 0 and the seconds left', async () => {
    sim.accounts.push({ apiKey: 'burst-key-1', scope: 'public', permission: 'read', jobs: [] });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 51; i++) {
      last = await fetch(url('/v1/jobs'), { headers: { Authorization: 'Token token=burst-key-1', 'X-Api-Version': '20161108' } });
      statuses.push(last.status);
      await last.arrayBuffer();
    }
    expect(statuses.filter((s) => s === 200)).toHaveLength(50);
    expect(statuses[50]).toBe(429);
    expect(last!.headers.get('x-rate-limit-remaining')).toBe('0');
    expect(Number(last!.headers.get('x-rate-limit-reset'))).toBeGreaterThanOrEqual(1);
    expect(Number(last!.headers.get('x-rate-limit-reset'))).toBeLessThanOrEqual(10);
  });
});
