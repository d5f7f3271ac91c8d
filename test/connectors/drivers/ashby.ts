import { ashbyBoard, COVER_LETTER_PATH, startAshbySimulator, type AshbySimulator } from '../../simulators/ashby.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let ashby: AshbySimulator;

const WHY_US = '5b0f1a9e-why-us';

function makeDriver(): Driver {
  // One application per e-mail on this board: a second one is blocked (Ashby's application limits).
  const board = ashbyBoard('acme-contract', { apiKey: 'ashby-key-contract-1', applicationLimit: 1 });
  ashby.boards.set(board.name, board);
  const ids = {
    a: '3f1c0d9a-0000-4000-8000-00000000000a',
    b: '3f1c0d9a-0000-4000-8000-00000000000b',
    c: '3f1c0d9a-0000-4000-8000-00000000000c',
  };
  const apiKey = board.apiKey;
  return {
    ats: 'ashby',
    ids,
    credentials: { job_board_name: board.name, api_key: apiKey },
    returnsExternalId: true,
    async publish(jobs) {
      board.listOverride = undefined;
      board.postings = jobs.map((j) => ({
        id: ids[j.key],
        title: j.title,
        descriptionHtml: `<p>Build ${j.title}</p>`,
        department: 'Software Engineering',
        compensation: { min: 60000, max: 80000, currency: 'EUR', interval: '1 YEAR', summary: '€60K – €80K' },
        questions: [{ path: WHY_US, title: 'Why us?', type: 'LongText' }],
      }));
    },
    async breakFeed() {
      board.listOverride = '{"apiVersion": "1", "jobs": {"not": "a list"}}';
    },
    async rejectCredentials(on) {
      board.apiKey = on ? 'ashby-key-rotated-2' : apiKey;
    },
    async close(key) {
      board.postings.find((p) => p.id === ids[key])!.open = false;
    },
    async rateLimitOnce() {
      ashby.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      board.priorApplicants.add(email);
      return email;
    },
    // Over the board's application limit Ashby blocks the application (formMessages.blocked).
    duplicateOutcome: { sync_status: 'EXPECTED_FAILURE', failure_error: 'DuplicateApplicationError' },
    async checkSubmission(email, externalJobId) {
      const request = ashby
        .requestsTo(/\/applicationForm\.submit$/)
        .filter((r) => r.status === 200 && (r.json as { jobPostingId?: unknown } | undefined)?.jobPostingId === externalJobId)
        .pop()!;
      expect(request.headers.authorization).toBe(`Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`);
      expect(request.headers.accept).toBe('application/json; version=1');
      // JSON with presigned-upload handles, as Ashby recommends since its 2026-08-18 changelog (P279).
      expect(request.headers['content-type']).toBe('application/json');
      const body = request.json as { applicationForm: { fieldSubmissions: { path: string; value: unknown }[] } };
      const handles = body.applicationForm.fieldSubmissions.filter((f) => [`_systemfield_resume`, COVER_LETTER_PATH].includes(f.path));
      expect(body).toEqual({
        jobPostingId: externalJobId,
        allowSubmissionForUnpublishedJobPosting: false,
        applicationForm: {
          fieldSubmissions: [
            { path: '_systemfield_name', value: 'Grace Hopper' },
            { path: '_systemfield_email', value: email },
            { path: '_systemfield_phone', value: '+49 30 1234' },
            { path: WHY_US, value: 'Because.' },
            { path: '_systemfield_resume', value: expect.any(String) },
            { path: COVER_LETTER_PATH, value: expect.any(String) },
          ],
        },
      });
      // Each handle names a file uploaded to the presigned URL, with its name, type and bytes.
      expect(
        handles.map((h) => {
          const upload = ashby.uploads.get(String(h.value))!;
          return [upload.context, upload.fileName, upload.contentType, upload.file?.bytes];
        }),
      ).toEqual([
        ['ApplicationForm', 'cv.pdf', 'application/pdf', PDF],
        ['ApplicationForm', 'cover.pdf', 'application/pdf', COVER],
      ]);
      const application = ashby.applications.find((a) => a.submittedFormInstanceId && a.postingId === externalJobId && !a.blocked)!;
      expect(application).toBeDefined();
      // The form was read with the same key first (jobPosting.info), to type the answers and place the files.
      const info = ashby.requestsTo(/\/jobPosting\.info$/).pop()!;
      expect(info.headers.authorization).toBe(`Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`);
      expect(info.json).toEqual({ jobPostingId: externalJobId });
    },
    checkRateLimited() {
      const statuses = ashby.requestsTo(/\/applicationForm\.submit$/).map((r) => r.status);
      expect(statuses.slice(-2)).toEqual([429, 200]);
    },
    rawId: (key) => ({ id: ids[key] }),
  };
}

export const ashbyDriver: DriverModule = {
  ats: 'ashby',
  async start() {
    ashby = await startAshbySimulator();
    return { env: ashby.env, stop: () => ashby.server.stop() };
  },
  driver: () => makeDriver(),
};
