import { startWorkableSimulator, workableAccount, type WorkableSimulator } from '../../simulators/workable.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let workable: WorkableSimulator;

function makeDriver(): Driver {
  const account = workableAccount('acme-contract');
  workable.accounts.set(account.subdomain, account);
  const ids = { a: 'WK0A1', b: 'WK0B2', c: 'WK0C3' };
  const token = account.token;
  return {
    ats: 'workable',
    ids,
    credentials: { subdomain: account.subdomain, token },
    returnsExternalId: true,
    async publish(jobs) {
      account.listOverride = undefined;
      account.jobs = jobs.map((j) => ({
        shortcode: ids[j.key],
        title: j.title,
        description: `<p>Build ${j.title}</p>`,
        department: 'Software Engineering',
        employment_type: 'Full-time',
        questions: [
          { id: '123', body: 'Why us?', type: 'free_text', required: false },
          {
            id: 'qcover',
            body: 'Cover letter',
            type: 'file',
            required: false,
            supported_file_types: ['pdf', 'doc', 'docx'],
            max_file_size: 5242880,
          },
        ],
      }));
    },
    async breakFeed() {
      account.listOverride = '{"jobs": {"shortcode": "not a list"}}';
    },
    async rejectCredentials(on) {
      account.token = on ? 'wk-token-rotated-0123456789' : token;
    },
    async close(key) {
      account.jobs.find((j) => j.shortcode === ids[key])!.state = 'closed';
    },
    async rateLimitOnce() {
      workable.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      // A candidate with this e-mail already in job a (Workable refuses the same e-mail twice in one job).
      workable.candidates.push({
        id: 'known-1',
        subdomain: account.subdomain,
        shortcode: ids.a,
        body: { name: 'Known Person', email },
        sourced: false,
        stage: 'applied',
      });
      return email;
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const request = workable
        .requestsTo(new RegExp(`^/workable/acme-contract/spi/v3/jobs/${externalJobId}/candidates$`))
        .filter((r) => r.status === 201)
        .pop()!;
      expect(request.method).toBe('POST');
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.json).toEqual({
        sourced: false,
        candidate: {
          name: 'Grace Hopper',
          firstname: 'Grace',
          lastname: 'Hopper',
          email,
          phone: '+49 30 1234',
          resume: { name: 'cv.pdf', data: PDF.toString('base64') },
          answers: [
            { question_key: '123', body: 'Because.' },
            { question_key: 'qcover', file: { name: 'cover.pdf', data: COVER.toString('base64') } },
          ],
        },
      });
      // The application form was read for the cover letter's file question, with the same token.
      const form = workable.requestsTo(new RegExp(`/jobs/${externalJobId}/application_form$`)).pop()!;
      expect(form.headers.authorization).toBe(`Bearer ${token}`);
      // An applicant, not an uploaded candidate: Workable sends the "thank you for applying" e-mail.
      const created = workable.candidates.find((c) => c.body.email === email)!;
      expect(created).toMatchObject({ sourced: false, stage: 'applied' });
      expect(workable.thankYouEmails).toContain(email);
    },
    checkRateLimited() {
      expect(workable.postStatuses.slice(-2)).toEqual([429, 201]);
    },
    rawId: (key) => ({ shortcode: ids[key] }),
  };
}

export const workableDriver: DriverModule = {
  ats: 'workable',
  async start() {
    workable = await startWorkableSimulator();
    // The contract makes more calls than 10 per 10 s; the connector test covers the documented limit.
    workable.rateLimit = { limit: 1000, intervalMs: 10_000 };
    return { env: workable.env, stop: () => workable.server.stop() };
  },
  driver: () => makeDriver(),
};
