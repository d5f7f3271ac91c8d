import { setSandboxAts, sandboxReceipts, type SandboxAtsState } from '#delivery/connectors/sandbox.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

function makeDriver(companyId: number): Driver {
  const state: SandboxAtsState = {};
  const save = () => setSandboxAts(companyId, state);
  const ids = { a: 'sbx-a', b: 'sbx-b', c: 'closed-sbx-c' };
  return {
    ats: 'sandbox',
    ids,
    credentials: {},
    returnsExternalId: true,
    async publish(jobs) {
      state.feedMalformed = false;
      state.feed = jobs.map((j) => ({
        external_id: ids[j.key],
        title: j.title,
        description: `About ${j.title}`,
        raw_values: { key: j.key },
      }));
      await save();
    },
    async breakFeed() {
      state.feedMalformed = true;
      await save();
    },
    async rejectCredentials(on) {
      state.rejectCredentials = on;
      await save();
    },
    async close() {
      // The sandbox closes jobs whose external id starts with `closed-` (c is one).
    },
    async rateLimitOnce() {
      return 'grace+ratelimited@example.com';
    },
    async duplicate() {
      return 'grace+duplicate@example.com';
    },
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const receipt = (await sandboxReceipts({ id: companyId })).find((r) => r.candidate.email === email)!;
      expect(receipt).toMatchObject({
        job_external_id: externalJobId,
        candidate: { email, first_name: 'Grace', last_name: 'Hopper', phone: '+49 30 1234' },
        screening_answers: [{ id: '123', question: 'Why us?', answer_type: 'text', answer: 'Because.' }],
      });
      expect(receipt.attachments.map((a) => [a.type, a.name, a.size])).toEqual([
        ['cv', 'cv.pdf', PDF.length],
        ['cover_letter', 'cover.pdf', COVER.length],
      ]);
    },
    checkRateLimited() {},
    rawId: (key) => ({ key }),
  };
}

/** The sandbox needs no simulator: its state lives in the service's own store. */
export const sandboxDriver: DriverModule = {
  ats: 'sandbox',
  async start() {
    return { env: {}, stop: async () => {} };
  },
  driver: makeDriver,
};
