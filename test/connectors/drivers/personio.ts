import { personioAccount, startPersonioSimulator, type PersonioSimulator } from '../../simulators/personio.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let personio: PersonioSimulator;

function makeDriver(): Driver {
  const account = personioAccount('acme-contract');
  personio.accounts.set(account.subdomain, account);
  const ids = { a: '1001', b: '1002', c: '1003' };
  const token = account.token;
  return {
    ats: 'personio',
    ids,
    credentials: { subdomain: account.subdomain, personio_company_id: account.companyId, token },
    returnsExternalId: false,
    async publish(jobs) {
      account.feedOverride = undefined;
      account.positions = jobs.map((j) => ({
        id: ids[j.key],
        name: j.title,
        office: 'Berlin',
        department: 'Engineering',
        employmentType: 'permanent',
        seniority: 'experienced',
        schedule: 'full-time',
        occupationCategory: 'Software Development',
        descriptions: [
          { name: 'Your tasks', value: `<p>Build ${j.title}</p>` },
          { name: 'Your profile', value: '<ul><li>TypeScript</li></ul>' },
        ],
      }));
    },
    async breakFeed() {
      account.feedOverride = '<html><body>Maintenance</body>';
    },
    async rejectCredentials(on) {
      account.token = on ? 'rotated-token-123' : token;
    },
    async close(key) {
      account.unpublished.add(ids[key]);
    },
    async rateLimitOnce() {
      personio.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      account.applicants.add(email);
      return email;
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const documents = personio
        .requestsTo(/\/applications\/documents$/)
        .filter((r) => r.status === 200)
        .slice(-2);
      for (const request of documents) {
        expect(request.headers.authorization).toBe(`Bearer ${token}`);
        expect(request.headers['x-company-id']).toBe(account.companyId);
        expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      }
      expect(documents.map((r) => [r.files[0].field, r.files[0].filename, r.files[0].contentType, r.files[0].bytes])).toEqual([
        ['file', 'cv.pdf', 'application/pdf', PDF],
        ['file', 'cover.pdf', 'application/pdf', COVER],
      ]);
      const request = personio
        .requestsTo(/\/v1\/recruiting\/applications$/)
        .filter((r) => r.status === 201)
        .pop()!;
      expect(request.headers.authorization).toBe(`Bearer ${token}`);
      expect(request.headers['x-company-id']).toBe(account.companyId);
      expect(request.headers['content-type']).toBe('application/json');
      const application = personio.applications.find((a) => a.body.email === email)!;
      expect(request.json).toEqual({
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        job_position_id: Number(externalJobId),
        message: 'Why us?: Because.',
        application_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
        attributes: [{ id: 'phone', value: '+49 30 1234' }],
        files: [
          { uuid: application.documents[0].uuid, original_filename: 'cv.pdf', category: 'cv' },
          { uuid: application.documents[1].uuid, original_filename: 'cover.pdf', category: 'cover-letter' },
        ],
      });
      expect(application.ignored).toEqual([]);
      // The feed was read in the connection's language (the default, German).
      expect(personio.requestsTo(/\/acme-contract\/xml$/).every((r) => r.query.get('language') === 'de')).toBe(true);
    },
    checkRateLimited() {
      const statuses = personio.server.requests.filter((r) => r.method === 'POST').map((r) => r.status);
      expect(statuses.slice(-4)).toEqual([429, 200, 200, 201]);
    },
    rawId: (key) => ({ id: ids[key] }),
  };
}

export const personioDriver: DriverModule = {
  ats: 'personio',
  async start() {
    personio = await startPersonioSimulator();
    return { env: personio.env, stop: () => personio.server.stop() };
  },
  driver: () => makeDriver(),
};
