/**
 * The Workable simulator checked against Workable's own reference, without our connector (P278): requests
 * rebuilt from the fields the vendor's pages document, sent straight to the simulator with fetch, and the
 * answers checked as those pages describe them. The shapes our connector got wrong or left out before are
 * refused (or, for the text cover letter, kept) as Workable documents.
 */
import { startWorkableSimulator, workableAccount, type WorkableSimulator } from '../simulators/workable.js';

let workable: WorkableSimulator;
let base: string;
const account = workableAccount('examples', {
  jobs: [
    { shortcode: 'GROOV005', title: 'Groovy Engineer' },
    { shortcode: 'CLOSED01', title: 'Closed Job', state: 'closed' },
  ],
});
const auth = { Authorization: `Bearer ${account.token}` };
const json = { ...auth, 'Content-Type': 'application/json', Accept: 'application/json' };

beforeAll(async () => {
  workable = await startWorkableSimulator();
  workable.accounts.set(account.subdomain, account);
  base = `${workable.server.url}/workable/${account.subdomain}/spi/v3`;
});
afterAll(() => workable.server.stop());
beforeEach(() => {
  workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
});

const post = (path: string, body: unknown) => fetch(`${base}${path}`, { method: 'POST', headers: json, body: JSON.stringify(body) });

describe('jobs (https://workable.readme.io/reference/jobs)', () => {
  test('GET /spi/v3/jobs?state=published with the Bearer token: {jobs, paging}, each job with its documented fields', async () => {
    const response = await fetch(`${base}/jobs?state=published&limit=1`, { headers: auth });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { jobs: Record<string, unknown>[]; paging: { next?: string } };
    expect(body.jobs).toHaveLength(1);
    expect(Object.keys(body.jobs[0])).toEqual(
      expect.arrayContaining(['id', 'title', 'full_title', 'shortcode', 'code', 'state', 'department', 'url', 'application_url']),
    );
    expect(body.jobs[0]).toMatchObject({ shortcode: 'GROOV005', state: 'published' });
    expect(body.jobs[0].location).toEqual(expect.objectContaining({ location_str: expect.any(String), country_code: expect.any(String) }));
    // Only one published job: no next page.
    expect(body.paging.next).toBeUndefined();
  });

  test('without the Bearer token: 401 {"error": …}; an undocumented path: 404', async () => {
    const anonymous = await fetch(`${base}/jobs`);
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toEqual({ error: expect.any(String) });
    const unknown = await fetch(`${base}/applications`, { headers: auth });
    expect(unknown.status).toBe(404);
  });
});

describe('rate limits (https://workable.readme.io/docs/rate-limits)', () => {
  test('every answer carries X-Rate-Limit-Limit/-Remaining/-Reset; the 11th request of an interval is 429', async () => {
    workable.rateLimit = { limit: 10, intervalMs: 10_000 };
    const own = workableAccount('examples-rate', { jobs: [] });
    workable.accounts.set(own.subdomain, own);
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 11; i++) {
      last = await fetch(`${workable.server.url}/workable/${own.subdomain}/spi/v3/jobs?limit=1`, {
        headers: { Authorization: `Bearer ${own.token}` },
      });
      statuses.push(last.status);
      if (i === 0) {
        expect(last.headers.get('x-rate-limit-limit')).toBe('10');
        expect(last.headers.get('x-rate-limit-remaining')).toBe('9');
        // "Timestamp of next interval": in the next 10 seconds.
        const reset = Number(last.headers.get('x-rate-limit-reset')) * 1000;
        expect(reset).toBeGreaterThan(Date.now());
        expect(reset).toBeLessThanOrEqual(Date.now() + 11_000);
      }
    }
    expect(statuses).toEqual([...Array(10).fill(200), 429]);
    expect(last!.headers.get('x-rate-limit-remaining')).toBe('0');
  });
});

describe('create a candidate (https://workable.readme.io/reference/job-candidates-create)', () => {
  // The documented keys, with the types https://workable.readme.io/docs/update-candidate lists for them.
  const documented = {
    sourced: false,
    candidate: {
      name: 'Lakita Marrero',
      firstname: 'Lakita',
      lastname: 'Marrero',
      email: 'lakita_marrero@example.com',
      headline: 'Operations Manager',
      summary: 'Operations manager with a decade in logistics',
      address: 'Unter den Linden 1, 10117 Berlin, Germany',
      phone: '+49 30 1234',
      cover_letter: 'I have deep knowledge of the industry and would love to join.',
      skills: ['Logistics', 'Planning'],
      tags: ['referral'],
      social_profiles: [{ type: 'linkedin', name: 'LinkedIn', username: 'lakita', url: 'https://www.linkedin.com/in/lakita' }],
      resume: { name: 'resume.pdf', data: Buffer.from('%PDF-1.5\n%%EOF').toString('base64') },
    },
  };

  test('the documented body with "sourced": false at the root: 201 with the candidate and its id; an applied candidate, e-mailed', async () => {
    const response = await post('/jobs/GROOV005/candidates', documented);
    expect(response.status).toBe(201);
    const body = (await response.json()) as { candidate: Record<string, unknown> };
    expect(body.candidate).toEqual(expect.objectContaining({ id: expect.any(String), email: 'lakita_marrero@example.com' }));
    const created = workable.candidates.at(-1)!;
    expect(created).toMatchObject({ sourced: false, stage: 'applied' });
    // The text cover letter is kept as the candidate's cover_letter.
    expect(created.body.cover_letter).toBe(documented.candidate.cover_letter);
    expect(workable.thankYouEmails).toContain('lakita_marrero@example.com');
  });

  test('without "sourced": an uploaded candidate, no "thank you for applying" e-mail ("a major difference with the previous API versions")', async () => {
    const response = await post('/jobs/GROOV005/candidates', { candidate: { name: 'Uploaded One', email: 'uploaded@example.com' } });
    expect(response.status).toBe(201);
    expect(workable.candidates.at(-1)).toMatchObject({ sourced: true, stage: 'sourced' });
    expect(workable.thankYouEmails).not.toContain('uploaded@example.com');
  });

  test('name, or firstname and lastname, and email are required: 422 {"error": …}', async () => {
    const noName = await post('/jobs/GROOV005/candidates', { sourced: false, candidate: { email: 'noname@example.com' } });
    expect(noName.status).toBe(422);
    expect(await noName.json()).toEqual({ error: expect.stringContaining('Name') });
    const noEmail = await post('/jobs/GROOV005/candidates', { sourced: false, candidate: { name: 'No Mail' } });
    expect(noEmail.status).toBe(422);
  });

  test('misnamed or mistyped fields are refused (422): a camel-cased coverLetter, a cover letter file object, an unknown root key', async () => {
    for (const body of [
      { sourced: false, candidate: { name: 'A B', email: 'ab1@example.com', coverLetter: 'text' } },
      { sourced: false, candidate: { name: 'A B', email: 'ab2@example.com', cover_letter: { name: 'c.pdf', data: 'JVBERg==' } } },
      { sourced: false, stage: 'applied', candidate: { name: 'A B', email: 'ab3@example.com' } },
      { sourced: 'false', candidate: { name: 'A B', email: 'ab4@example.com' } },
      { sourced: false, candidate: { name: 'A B', email: 'ab5@example.com', skills: 'TypeScript' } },
      { sourced: false, candidate: { name: 'A B', email: 'ab6@example.com', resume: { url: 'https://example.com/cv.pdf' } } },
    ]) {
      const response = await post('/jobs/GROOV005/candidates', body);
      expect(response.status).toBe(422);
      expect(await response.json()).toEqual({ error: expect.stringMatching(/^Validation failed: /) });
    }
  });

  test('an unknown shortcode is 404; a closed job refuses candidates', async () => {
    expect((await post('/jobs/NOPE0000/candidates', documented)).status).toBe(404);
    expect((await post('/jobs/CLOSED01/candidates', documented)).status).toBe(422);
  });
});
