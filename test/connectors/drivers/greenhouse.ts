import { startGreenhouseSimulator, type GreenhouseBoard, type GreenhouseSimulator } from '../../simulators/greenhouse.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let greenhouse: GreenhouseSimulator;

function makeDriver(): Driver {
  const board: GreenhouseBoard = { token: 'acmecontract', apiKey: 'gh-key-contract-1', jobs: [] };
  greenhouse.boards.set(board.token, board);
  const ids = { a: '2001', b: '2002', c: '2003' };
  const apiKey = board.apiKey;
  return {
    ats: 'greenhouse',
    ids,
    credentials: { board_token: board.token, api_key: apiKey },
    returnsExternalId: false,
    async publish(jobs) {
      board.listOverride = undefined;
      board.jobs = jobs.map((j) => ({
        id: Number(ids[j.key]),
        title: j.title,
        content: `<p>Build ${j.title} & more</p>`,
        location: 'Berlin, Germany',
        departments: ['Engineering'],
        questions: [
          { required: true, label: 'First Name', fields: [{ name: 'first_name', type: 'input_text' }] },
          { required: true, label: 'Resume/CV', fields: [{ name: 'resume', type: 'input_file' }] },
          { required: false, label: 'Why us?', fields: [{ name: 'question_123', type: 'textarea' }] },
        ],
        pay: { min_cents: 6000000, max_cents: 8000000, currency_type: 'EUR', title: 'Berlin range' },
      }));
    },
    async breakFeed() {
      board.listOverride = '{"jobs": "not a list"}';
    },
    async rejectCredentials(on) {
      board.apiKey = on ? 'gh-key-rotated-2' : apiKey;
    },
    async close(key) {
      board.jobs.find((j) => j.id === Number(ids[key]))!.live = false;
    },
    async rateLimitOnce() {
      greenhouse.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      return email;
    },
    // Greenhouse documents no duplicate error: a second application of the same person is accepted.
    duplicateOutcome: { sync_status: 'SUCCESS', failure_error: null },
    async checkSubmission(email, externalJobId) {
      const request = greenhouse
        .requestsTo(new RegExp(`/jobs/${externalJobId}$`))
        .filter((r) => r.method === 'POST')
        .pop()!;
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`);
      expect(request.headers['content-type']).toBe('application/json');
      expect(request.json).toEqual({
        first_name: 'Grace',
        last_name: 'Hopper',
        email,
        phone: '+49 30 1234',
        resume_content: PDF.toString('base64'),
        resume_content_filename: 'cv.pdf',
        cover_letter_content: COVER.toString('base64'),
        cover_letter_content_filename: 'cover.pdf',
        question_123: 'Because.',
      });
      expect(request.status).toBe(200);
    },
    checkRateLimited() {
      // The submission reads the job first (P280): that read met the 429, the retry read it and applied.
      const calls = greenhouse.server.requests.filter((r) => /\/jobs\/\d+$/.test(r.path)).map((r) => [r.method, r.status]);
      expect(calls.slice(-3)).toEqual([
        ['GET', 429],
        ['GET', 200],
        ['POST', 200],
      ]);
    },
    rawId: (key) => ({ id: Number(ids[key]) }),
  };
}

export const greenhouseDriver: DriverModule = {
  ats: 'greenhouse',
  async start() {
    greenhouse = await startGreenhouseSimulator();
    return { env: greenhouse.env, stop: () => greenhouse.server.stop() };
  },
  driver: () => makeDriver(),
};
