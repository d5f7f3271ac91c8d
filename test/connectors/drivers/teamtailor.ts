import { startTeamtailorSimulator, type TeamtailorAccount, type TeamtailorSimulator } from '../../simulators/teamtailor.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let teamtailor: TeamtailorSimulator;

// The current version the vendor's docs name (docs.teamtailor.com "Versioning"; P277).
const VERSION = '20161108';
/** A presigned S3 GET URL of a stored object (fauxqs on loopback), valid for at most an hour (P277). */
const presigned = expect.stringMatching(
  /^http:\/\/127\.0\.0\.1:\d+\/[^?]+\/companies\/\d+\/applications\/\d+\/[\w-]+\?.*X-Amz-Expires=(\d{1,3}|[0-2]\d{3}|3[0-5]\d\d|3600)&/,
);

function makeDriver(): Driver {
  const account: TeamtailorAccount = { apiKey: 'tt-key-contract-admin-1', scope: 'admin', permission: 'read-write', jobs: [] };
  teamtailor.accounts.push(account);
  const ids = { a: '7001', b: '7002', c: '7003' };
  const apiKey = account.apiKey;
  const posts = (path: string) => teamtailor.requestsTo(new RegExp(`/teamtailor/v1/${path}$`)).filter((r) => r.method === 'POST');
  const json = (body: Buffer) => JSON.parse(body.toString('utf8')) as unknown;
  return {
    ats: 'teamtailor',
    ids,
    credentials: { api_key: apiKey, region: 'eu' },
    returnsExternalId: true,
    async publish(jobs) {
      account.listOverride = undefined;
      account.jobs = jobs.map((j) => ({
        id: ids[j.key],
        title: j.title,
        body: `<p>Build ${j.title} &amp; more</p>`,
        employmentType: 'fulltime',
        remoteStatus: 'hybrid',
        location: { id: '11', name: 'Berlin office', city: 'Berlin', country: 'Germany' },
        department: { id: '21', name: 'Engineering' },
        questions: [{ id: '123', title: 'Why us?', type: 'Text', mandatory: false }],
      }));
    },
    async breakFeed() {
      account.listOverride = '{"data": {"type": "jobs"}}';
    },
    async rejectCredentials(on) {
      account.apiKey = on ? 'tt-key-rotated-2' : apiKey;
    },
    async close(key) {
      account.jobs.find((j) => j.id === ids[key])!.status = 'archived';
    },
    async rateLimitOnce() {
      teamtailor.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      // A candidate who already applied to job a: merge finds them, the job application is refused.
      const candidate = { id: `known-${email}`, apiKey, attributes: { email, 'first-name': 'Grace', 'last-name': 'Hopper' } };
      teamtailor.candidates.push(candidate);
      teamtailor.applications.push({ id: `app-${email}`, candidateId: candidate.id, jobId: ids.a, attributes: {} });
      return email;
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const candidatePost = posts('candidates')
        .filter((r) => r.status === 201)
        .pop()!;
      for (const request of [candidatePost, ...posts('uploads'), ...posts('answers'), ...posts('job-applications')]) {
        expect(request.headers.authorization).toBe(`Token token=${apiKey}`);
        expect(request.headers['x-api-version']).toBe(VERSION);
        expect(request.headers['content-type']).toBe('application/vnd.api+json');
        expect(request.headers.accept).toBe('application/vnd.api+json');
      }
      expect(json(candidatePost.body)).toEqual({
        data: {
          type: 'candidates',
          attributes: {
            'first-name': 'Grace',
            'last-name': 'Hopper',
            email,
            phone: '+49 30 1234',
            resume: presigned,
            merge: true,
          },
        },
      });
      const candidate = teamtailor.candidates.find((c) => c.attributes.email === email)!;
      // The simulator downloaded the URL as Teamtailor does: the stored CV's bytes.
      expect(candidate.resume).toMatchObject({ filename: null, bytes: PDF });
      const upload = posts('uploads').pop()!;
      expect(json(upload.body)).toEqual({
        data: {
          type: 'uploads',
          attributes: { url: presigned, 'file-name': 'cover.pdf', internal: false },
          relationships: {
            candidate: { data: { type: 'candidates', id: candidate.id } },
            job: { data: { type: 'jobs', id: externalJobId } },
          },
        },
      });
      expect(teamtailor.uploads.filter((u) => u.candidateId === candidate.id).map((u) => [u.file.filename, u.file.bytes])).toEqual([
        ['cover.pdf', COVER],
      ]);
      expect(json(posts('answers').pop()!.body)).toEqual({
        data: {
          type: 'answers',
          attributes: { text: 'Because.' },
          relationships: {
            candidate: { data: { type: 'candidates', id: candidate.id } },
            question: { data: { type: 'questions', id: '123' } },
          },
        },
      });
      const application = posts('job-applications').pop()!;
      expect(json(application.body)).toEqual({
        data: {
          type: 'job-applications',
          attributes: { sourced: false },
          relationships: {
            candidate: { data: { type: 'candidates', id: candidate.id } },
            job: { data: { type: 'jobs', id: externalJobId } },
          },
        },
      });
      expect(application.status).toBe(201);
      expect(teamtailor.applications.filter((a) => a.candidateId === candidate.id && a.jobId === externalJobId)).toHaveLength(1);
    },
    checkRateLimited() {
      // The first POST (the candidate) got 429; the sync retried and the job application went through.
      const statuses = teamtailor.postStatuses;
      const last429 = statuses.lastIndexOf(429);
      expect(last429).toBeGreaterThanOrEqual(0);
      expect(statuses.slice(last429 + 1)).toEqual([201, 201, 201, 201]);
      expect(posts('job-applications').pop()!.status).toBe(201);
    },
    rawId: (key) => ({ id: ids[key], type: 'jobs' }),
  };
}

export const teamtailorDriver: DriverModule = {
  ats: 'teamtailor',
  async start() {
    teamtailor = await startTeamtailorSimulator();
    return { env: teamtailor.env, stop: () => teamtailor.server.stop() };
  },
  driver: () => makeDriver(),
};
