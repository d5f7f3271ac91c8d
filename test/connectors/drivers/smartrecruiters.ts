import {
  startSmartRecruitersSimulator,
  type SmartRecruitersCompany,
  type SmartRecruitersSimulator,
} from '../../simulators/smartrecruiters.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let smartrecruiters: SmartRecruitersSimulator;

function makeDriver(): Driver {
  const company: SmartRecruitersCompany = { identifier: 'AcmeContract', apiKey: 'sr-contract-key-0123456789abcdef', postings: [] };
  smartrecruiters.companies.set(company.identifier, company);
  // Job external ids are posting uuids (what the Application API takes); posting ids differ.
  const ids = {
    a: '3fa85f64-5717-4562-b3fc-2c963f66afa1',
    b: '3fa85f64-5717-4562-b3fc-2c963f66afa2',
    c: '3fa85f64-5717-4562-b3fc-2c963f66afa3',
  };
  const postingIds = { a: '744000001', b: '744000002', c: '744000003' };
  const apiKey = company.apiKey;
  return {
    ats: 'smartrecruiters',
    ids,
    credentials: { company_identifier: company.identifier, api_key: apiKey },
    returnsExternalId: true,
    async publish(jobs) {
      company.listOverride = undefined;
      company.postings = jobs.map((j) => ({
        id: postingIds[j.key],
        uuid: ids[j.key],
        name: j.title,
        jobDescription: `<p>Build ${j.title} &amp; more</p>`,
        qualifications: '<ul><li>TypeScript</li></ul>',
        questions: [{ id: '123', label: 'Why us?', fields: [{ id: 'f-123', label: 'Why us?', type: 'TEXTAREA', required: true }] }],
      }));
    },
    async breakFeed() {
      company.listOverride = '{"totalFound": 2, "content": "not a list"}';
    },
    async rejectCredentials(on) {
      company.apiKey = on ? 'sr-rotated-key-0123456789abcdef' : apiKey;
    },
    async close(key) {
      company.postings.find((p) => p.uuid === ids[key])!.published = false;
    },
    async rateLimitOnce() {
      smartrecruiters.rateLimitPostsNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      smartrecruiters.applications.push({ uuid: ids.a, body: { email }, candidateId: 'known-candidate' });
      return email;
    },
    // Simulated as 409 DUPLICATE_CANDIDATE (the vendor documents no duplicate answer; see the simulator).
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const posts = smartrecruiters.requestsTo(new RegExp(`/postings/${externalJobId}/candidates$`)).filter((r) => r.status === 201);
      const request = posts.pop()!;
      const index = smartrecruiters.server.requests.indexOf(request);
      // The documented flow: the posting's configuration (with the key) right before the application.
      const config = smartrecruiters.server.requests[index - 1];
      expect([config.method, config.path, config.headers['x-smarttoken'], config.status]).toEqual([
        'GET',
        `/smartrecruiters/postings/${externalJobId}/configuration`,
        apiKey,
        200,
      ]);
      expect(request.headers['x-smarttoken']).toBe(apiKey);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.headers.authorization).toBeUndefined();
      expect(request.json).toEqual({
        firstName: 'Grace',
        lastName: 'Hopper',
        email,
        phoneNumber: '+49 30 1234',
        answers: [{ id: '123', records: [{ fields: { 'f-123': ['Because.'] } }] }],
        attachments: [
          { fileName: 'cv.pdf', mimeType: 'application/pdf', fileContent: PDF.toString('base64') },
          { fileName: 'cover.pdf', mimeType: 'application/pdf', fileContent: COVER.toString('base64') },
        ],
      });
      const files = (request.json as { attachments: { fileContent: string }[] }).attachments.map((a) =>
        Buffer.from(a.fileContent, 'base64'),
      );
      expect(files).toEqual([PDF, COVER]);
      const application = smartrecruiters.applications.find((a) => a.body.email === email)!;
      expect(application.uuid).toBe(externalJobId);
    },
    checkRateLimited() {
      // The connector backed off and retried the 429 itself, within the same attempt.
      expect(smartrecruiters.postStatuses.slice(-2)).toEqual([429, 201]);
    },
    rawId: (key) => ({ id: postingIds[key], uuid: ids[key] }),
  };
}

export const smartrecruitersDriver: DriverModule = {
  ats: 'smartrecruiters',
  async start() {
    smartrecruiters = await startSmartRecruitersSimulator();
    // Short backoff for the connector's own retry of a 429.
    return { env: { ...smartrecruiters.env, SMARTRECRUITERS_RETRY_BASE_MS: '50' }, stop: () => smartrecruiters.server.stop() };
  },
  driver: () => makeDriver(),
};
