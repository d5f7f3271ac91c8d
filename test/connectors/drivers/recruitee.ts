import { recruiteeSlug, startRecruiteeSimulator, type RecruiteeSimulator, type RecruiteeSite } from '../../simulators/recruitee.js';
import { COVER, PDF, type Driver, type DriverModule } from './driver.js';

let recruitee: RecruiteeSimulator;

function makeDriver(): Driver {
  const site: RecruiteeSite = { company: 'acme-contract', offers: [] };
  recruitee.sites.set(site.company, site);
  const ids = { a: '4101', b: '4102', c: '4103' };
  return {
    ats: 'recruitee',
    ids,
    credentials: { company: site.company },
    returnsExternalId: true,
    async publish(jobs) {
      site.listOverride = undefined;
      site.offers = jobs.map((j) => ({
        id: Number(ids[j.key]),
        title: j.title,
        description: `<p>Build ${j.title}</p>`,
        department: 'Software Engineering',
        employmentTypeCode: 'fulltime_permanent',
        hybrid: true,
        optionsPhone: 'required',
        // The careers site takes a cover-letter document only as the answer to a file question (P276).
        questions: [
          { id: 123, kind: 'text', body: 'Why us?', required: true },
          { id: 124, kind: 'file', body: 'Cover letter' },
        ],
      }));
    },
    async breakFeed() {
      site.listOverride = '{"offers": "not a list"}';
    },
    // The careers site has no credentials: "rejected" is a careers site that no longer exists (404 on the company).
    async rejectCredentials(on) {
      site.gone = on;
    },
    async close(key) {
      site.offers.find((o) => o.id === Number(ids[key]))!.status = 'closed';
    },
    async rateLimitOnce() {
      recruitee.rateLimitNext = 1;
      return 'grace.rate@example.com';
    },
    async duplicate(email) {
      return email;
    },
    // Recruitee documents no duplicate error: a known e-mail is accepted (and flagged as a possible duplicate in its UI).
    duplicateOutcome: { sync_status: 'SUCCESS', failure_error: null },
    async checkSubmission(email, externalJobId) {
      // Recruitee applies by the offer's slug (the job's stored ats_apply_key), not by its numeric id.
      const slug = recruiteeSlug(site.offers.find((o) => String(o.id) === externalJobId)!);
      const request = recruitee
        .requestsTo(new RegExp(`^/recruitee/acme-contract/api/offers/${slug}/candidates$`))
        .filter((r) => r.method === 'POST' && r.status === 201)
        .pop()!;
      expect(request.headers.authorization).toBeUndefined();
      expect(request.headers.accept).toBe('application/json');
      expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(request.fields).toEqual({
        'candidate[name]': ['Grace Hopper'],
        'candidate[email]': [email],
        'candidate[phone]': ['+49 30 1234'],
        'candidate[open_question_answers_attributes][0][open_question_id]': ['123'],
        'candidate[open_question_answers_attributes][0][content]': ['Because.'],
        'candidate[open_question_answers_attributes][1][open_question_id]': ['124'],
      });
      expect(request.files.map((f) => [f.field, f.filename, f.contentType, f.bytes])).toEqual([
        ['candidate[cv]', 'cv.pdf', 'application/pdf', PDF],
        ['candidate[open_question_answers_attributes][1][file]', 'cover.pdf', 'application/pdf', COVER],
      ]);
      const candidate = recruitee.candidates.filter((c) => c.email === email).pop()!;
      expect(candidate).toMatchObject({
        offerId: Number(externalJobId),
        answers: [{ open_question_id: '123', content: 'Because.' }, { open_question_id: '124' }],
      });
      expect(candidate.answers[1].file?.bytes).toEqual(COVER);
    },
    checkRateLimited() {
      // The 429 may meet the offers-list read that comes first (the cover letter needs the offer's file question); after it, one POST succeeds.
      const requests = recruitee.server.requests;
      const limited = requests.map((r) => r.status).lastIndexOf(429);
      expect(limited).toBeGreaterThanOrEqual(0);
      expect(
        requests
          .slice(limited + 1)
          .filter((r) => r.method === 'POST')
          .map((r) => r.status),
      ).toEqual([201]);
    },
    rawId: (key) => ({ id: Number(ids[key]) }),
  };
}

export const recruiteeDriver: DriverModule = {
  ats: 'recruitee',
  async start() {
    recruitee = await startRecruiteeSimulator();
    return { env: recruitee.env, stop: () => recruitee.server.stop() };
  },
  driver: () => makeDriver(),
};
