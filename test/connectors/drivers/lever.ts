import { startLeverSimulator, type LeverSimulator, type LeverSite } from '../../simulators/lever.js';
import { PDF, type Driver, type DriverModule } from './driver.js';

let lever: LeverSimulator;

function makeDriver(): Driver {
  const site: LeverSite = { site: 'acme-contract', apiKey: 'lever-key-contract', postings: [] };
  lever.sites.set(site.site, site);
  const ids = { a: 'lever-a', b: 'lever-b', c: 'lever-c' };
  const apiKey = site.apiKey;
  return {
    ats: 'lever',
    ids,
    credentials: { site: site.site, api_key: apiKey },
    returnsExternalId: true,
    async publish(jobs) {
      site.listOverride = undefined;
      site.postings = jobs.map((j) => ({
        id: ids[j.key],
        text: j.title,
        description: `Build ${j.title}`,
        commitment: 'Full-time',
        team: 'Software Engineering',
      }));
    },
    async breakFeed() {
      site.listOverride = '{"postings": []}';
    },
    async rejectCredentials(on) {
      site.apiKey = on ? 'lever-key-rotated' : apiKey;
    },
    async close(key) {
      site.postings.find((p) => p.id === ids[key])!.open = false;
    },
    async rateLimitOnce() {
      lever.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      return email;
    },
    // Lever merges candidates by e-mail: it has no duplicate error.
    duplicateOutcome: { sync_status: 'SUCCESS', failure_error: null },
    async checkSubmission(email, externalJobId) {
      const request = lever
        .requestsTo(new RegExp(`/postings/acme-contract/${externalJobId}$`))
        .filter((r) => r.status === 200)
        .pop()!;
      expect(request.query.get('key')).toBe(apiKey);
      expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(request.fields).toEqual({
        name: ['Grace Hopper'],
        email: [email],
        phone: ['+49 30 1234'],
        comments: ['Why us?: Because.'],
      });
      expect(request.files.map((f) => [f.field, f.filename, f.contentType, f.bytes])).toEqual([
        ['resume', 'cv.pdf', 'application/pdf', PDF],
      ]);
      // Nothing Lever's README does not document (and Lever would drop).
      expect(lever.applications.at(-1)!.ignored).toEqual([]);
    },
    checkRateLimited() {
      // The connector retried the 429 itself, within the same attempt.
      expect(lever.postStatuses.slice(-2)).toEqual([429, 200]);
    },
    rawId: (key) => ({ id: ids[key] }),
    // Lever takes only the résumé as a file (P281): a cover letter is refused, shown in lever.test.ts.
    attachmentTypes: ['cv'],
  };
}

export const leverDriver: DriverModule = {
  ats: 'lever',
  async start() {
    lever = await startLeverSimulator();
    // Short backoff for the connector's own in-attempt retry of a 429.
    return { env: { ...lever.env, LEVER_RETRY_BASE_MS: '200' }, stop: () => lever.server.stop() };
  },
  driver: () => makeDriver(),
};
