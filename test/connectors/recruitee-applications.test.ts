/**
 * The Recruitee application body straight against the simulator (no storage involved): the answer formats
 * by question kind, the CV, the cover letter as text, other files as file answers, the offer's slug (P276) and
 * the file refusals (P210).
 */
import { recruiteeConnector } from '#delivery/connectors/recruitee.js';
import { PDF, answers, credentials, recruiteeEdge, submission } from '../helpers/recruitee-edge.js';
import { rejection } from '../helpers/submissions.js';
import type { SimulatorServer } from '../simulators/server.js';
import type { RecruiteeSimulator, RecruiteeSite } from '../simulators/recruitee.js';
import { withoutPacing } from '../simulators/server.js';

withoutPacing();

const edge = recruiteeEdge();
let sim: RecruiteeSimulator;
let odd: SimulatorServer;
let site: RecruiteeSite;
beforeEach(() => ({ sim, odd, site } = edge));
const useOdd = () => edge.useOdd();
const posts = (from: number) => edge.posts(from);

describe('applications', () => {
  test('answers go in the format of their kind: flag, multi_content[], content, and a file as the file question’s `file`; 201 gives the candidate id', async () => {
    const portfolio = Buffer.from('%PDF-1.5\nportfolio\n%%EOF');
    const before = sim.server.requests.length;
    const result = await recruiteeConnector.submitApplication(
      submission(
        {
          screeningAnswers: answers([
            { id: '11', answer_type: 'text', answer: 'One month' },
            { id: '13', answer_type: 'multi_select', answer: 'Go, Rust' },
            { id: 'open_question_14', answer_type: 'single_select', answer: 'B2B' },
            // The file question's text answer is not sent: the work sample below is its answer.
            { id: '16', answer_type: 'file', answer: 'portfolio.pdf' },
            { id: 'not-a-recruitee-question', answer_type: 'text', answer: 'ignored' },
          ]),
        },
        [{ name: 'cv.pdf' }, { name: 'portfolio.pdf', type: 'work_sample', bytes: portfolio }],
      ),
      credentials,
    );
    const created = sim.candidates.filter((c) => c.company === 'edge').pop()!;
    expect(result).toEqual({ externalId: String(created.id) });
    // The offers list is read once for the offer's file questions, then the application goes to the slug.
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path])).toEqual([
      ['GET', '/recruitee/edge/api/offers/'],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates'],
    ]);
    const request = sim.requestsTo(/\/recruitee\/edge\/api\/offers\/platform-engineer\/candidates$/).pop()!;
    const a = 'candidate[open_question_answers_attributes]';
    expect(request.fields).toEqual({
      'candidate[name]': ['Ada Lovelace'],
      'candidate[email]': ['ada.edge@example.com'],
      'candidate[phone]': ['+31 20 555'],
      [`${a}[0][open_question_id]`]: ['12'],
      [`${a}[0][flag]`]: ['false'],
      [`${a}[1][open_question_id]`]: ['15'],
      [`${a}[1][flag]`]: ['true'],
      [`${a}[2][open_question_id]`]: ['11'],
      [`${a}[2][content]`]: ['One month'],
      [`${a}[3][open_question_id]`]: ['13'],
      [`${a}[3][multi_content][]`]: ['Go', 'Rust'],
      [`${a}[4][open_question_id]`]: ['14'],
      [`${a}[4][content]`]: ['B2B'],
      [`${a}[5][open_question_id]`]: ['16'],
    });
    expect(request.files.map((f) => [f.field, f.filename, f.bytes])).toEqual([
      ['candidate[cv]', 'cv.pdf', PDF],
      [`${a}[5][file]`, 'portfolio.pdf', portfolio],
    ]);
    expect(created.answers).toHaveLength(6);
    expect(created.answers[5]).toMatchObject({ open_question_id: '16', file: { bytes: portfolio } });
  });

  test('a file question answered with text (a URL) and no file of the application is invalid_data, and nothing is sent; an empty answer is left out', async () => {
    const before = sim.server.requests.length;
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: answers([{ id: '16', answer_type: 'file', answer: 'https://files.example.com/portfolio.pdf' }]) }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(/question 16 has a text answer/);
    expect(error.message).not.toContain('files.example.com');
    expect(posts(before)).toEqual([]);
    // An empty answer to the (optional) file question carries nothing: it is left out and the application goes.
    await recruiteeConnector.submitApplication(
      submission({ screeningAnswers: answers([{ id: '16', answer_type: 'file', answer: ' ' }]) }),
      credentials,
    );
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    expect(Object.values(request.fields).flat()).not.toContain('16');
  });

  test('the quirk: a boolean question answered with content is refused by Recruitee (422), so the connector sends flag', async () => {
    // Sent the way a plain text answer goes, Recruitee refuses it …
    await expect(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: [{ id: '12', answer_type: 'text', answer: 'No' }, answers()[1]] }),
        credentials,
      ),
    ).rejects.toMatchObject({ kind: 'invalid_data' });
    // … and with its kind's answer_type it goes as flag and is accepted.
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).resolves.toEqual({
      externalId: expect.any(String),
    });
  });

  test('consent is never invented: a required legal question answered "no" is refused as invalid_data', async () => {
    const error = await rejection(
      recruiteeConnector.submitApplication(
        submission({ screeningAnswers: [answers()[0], { ...answers()[1], answer: 'no' }] }),
        credentials,
      ),
    );
    expect(error).toMatchObject({ kind: 'invalid_data' });
    expect(error.message).toMatch(/^Recruitee refused the application \(422: screening answers\)/);
  });

  test('a one-word name goes as it is; without a phone there is no phone field', async () => {
    site.offers[0].optionsPhone = 'optional';
    await recruiteeConnector.submitApplication(
      submission({ candidate: { email: 'solo@example.com', full_name: 'Cher' }, screeningAnswers: answers() }),
      credentials,
    );
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    expect(request.fields['candidate[name]']).toEqual(['Cher']);
    expect(request.fields['candidate[phone]']).toBeUndefined();
  });

  test('a cover letter that is text goes as the text candidate[cover_letter]; a second application with the same e-mail is accepted (no duplicate error)', async () => {
    const letter = 'Dear team,\nI would love to build your platform. – Ada';
    const files = [
      { name: 'cv.pdf' },
      { name: 'cover-letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes: Buffer.from(letter) },
    ];
    const candidate = { email: 'twice@example.com', full_name: 'Ada Twice', phone: '+31 20 556' };
    const before = sim.server.requests.length;
    const first = await recruiteeConnector.submitApplication(submission({ candidate, screeningAnswers: answers() }, files), credentials);
    const second = await recruiteeConnector.submitApplication(submission({ candidate, screeningAnswers: answers() }, files), credentials);
    expect(second.externalId).not.toBe(first.externalId);
    // One CV and a text cover letter need no file question: no offers list is read.
    expect(sim.server.requests.slice(before).map((r) => r.method)).toEqual(['POST', 'POST']);
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    // multipart/form-data carries line breaks as CRLF (the HTML form encoding), as a careers-site form would.
    const sent = letter.replace(/\n/g, '\r\n');
    expect(request.fields['candidate[cover_letter]']).toEqual([sent]);
    expect(request.files.map((f) => [f.field, f.filename, f.bytes])).toEqual([['candidate[cv]', 'cv.pdf', PDF]]);
    const created = sim.candidates.find((c) => String(c.id) === second.externalId)!;
    expect(created.coverLetter).toBe(sent);
    expect(created.possibleDuplicateOf).toBe(Number(first.externalId));
  });

  test('a cover-letter document goes as the file answer of the offer’s cover-letter question; without one it is attachment_rejected before any POST', async () => {
    const cover = Buffer.from('%PDF-1.5\ncover\n%%EOF');
    const files = [{ name: 'cv.pdf' }, { name: 'letter.pdf', type: 'cover_letter', bytes: cover }];
    const before = sim.server.requests.length;
    const error = await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
    expect(error.message).toMatch(/cover letter as text.*no file question for the cover_letter file/);
    expect(error.message).not.toContain('letter.pdf');
    expect(posts(before)).toEqual([]);

    site.offers[0].questions!.push({ id: 17, kind: 'file', body: 'Motivation letter' });
    await recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials);
    const request = sim.requestsTo(/\/candidates$/).pop()!;
    expect(request.fields['candidate[cover_letter]']).toBeUndefined();
    expect(request.fields['candidate[open_question_answers_attributes][2][open_question_id]']).toEqual(['17']);
    expect(request.files.map((f) => [f.field, f.bytes])).toEqual([
      ['candidate[cv]', PDF],
      ['candidate[open_question_answers_attributes][2][file]', cover],
    ]);
  });

  test.each([
    ['not UTF-8', Buffer.from([0xff, 0xfe, 0x00, 0x41]), /not UTF-8 text/],
    ['over 64 KiB', Buffer.alloc(64 * 1024 + 1, 'a'), /up to 65536 bytes/],
  ])('a text cover letter %s is attachment_rejected before any POST', async (_name, bytes, message) => {
    const before = sim.server.requests.length;
    const files = [{ name: 'cv.pdf' }, { name: 'letter.txt', type: 'cover_letter', content_type: 'text/plain', bytes }];
    const error = await rejection(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }, files), credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected' });
    expect(error.message).toMatch(message);
    expect(posts(before)).toEqual([]);
  });
});

describe('the offer’s slug (P276)', () => {
  test('a job imported without a stored slug: the offers list is read once for it, and the application goes to the slug', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined, screeningAnswers: answers() }), credentials),
    ).resolves.toEqual({ externalId: expect.any(String) });
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path, r.status])).toEqual([
      ['GET', '/recruitee/edge/api/offers/', 200],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates', 201],
    ]);
  });

  test('without a stored slug, an offer missing from the list is job_not_published and a careers site gone is credentials_rejected; nothing is posted', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined, jobExternalId: '999' }), credentials),
    ).rejects.toMatchObject({ kind: 'job_not_published' });
    site.gone = true;
    await expect(recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined }), credentials)).rejects.toMatchObject({
      kind: 'credentials_rejected',
      field: 'company',
    });
    expect(posts(before)).toEqual([]);
  });

  test('the numeric id is never the path: Recruitee (the simulator) answers 404 to it', async () => {
    const before = sim.server.requests.length;
    await expect(
      recruiteeConnector.submitApplication(submission({ jobApplyKey: '501', screeningAnswers: answers() }), credentials),
    ).resolves.toEqual({ externalId: expect.any(String) });
    // A stored "slug" that is the id answers 404; the list names the offer's real slug, and the application goes there once.
    expect(sim.server.requests.slice(before).map((r) => [r.method, r.path, r.status])).toEqual([
      ['POST', '/recruitee/edge/api/offers/501/candidates', 404],
      ['GET', '/recruitee/edge/api/offers/', 200],
      ['POST', '/recruitee/edge/api/offers/platform-engineer/candidates', 201],
    ]);
  });

  test('a slug changed with the title since the import: one more POST to the new slug, one candidate', async () => {
    site.offers[0].slug = 'platform-engineer-berlin';
    const before = sim.server.requests.length;
    const count = sim.candidates.length;
    await recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials);
    expect(posts(before).map((r) => [r.path, r.status])).toEqual([
      ['/recruitee/edge/api/offers/platform-engineer/candidates', 404],
      ['/recruitee/edge/api/offers/platform-engineer-berlin/candidates', 201],
    ]);
    expect(sim.candidates.length).toBe(count + 1);
  });

  test('an offers list whose offer has no usable slug is invalid_data, and nothing is posted', async () => {
    useOdd();
    edge.oddReply = { status: 200, body: { offers: [{ id: 501, title: 'Platform Engineer', slug: 'a/b' }] } };
    const error = await rejection(recruiteeConnector.submitApplication(submission({ jobApplyKey: undefined }), credentials));
    expect(error).toMatchObject({ kind: 'invalid_data', message: 'Recruitee lists the offer without a slug to apply to.' });
    expect(odd.requests.filter((r) => r.method === 'POST')).toEqual([]);
  });
});

describe('attachments', () => {
  test.each([
    ['a file over 10 MB (refused before it is read)', [{ name: 'cv.pdf', size: 10 * 1024 * 1024 + 1 }], /up to 10485760 bytes/],
    ['a type Recruitee does not take', [{ name: 'cv.exe' }], /accepts only pdf, doc, docx, odt, rtf, txt/],
    [
      'a file type the offer has no file question for',
      [{ name: 'cv.pdf' }, { name: 'cert.pdf', type: 'certificate' }],
      /no file question for the certificate file/,
    ],
    ['a second CV', [{ name: 'cv.pdf' }, { name: 'cv2.pdf' }], /no file question for the cv file/],
    ['an empty file', [{ name: 'cv.pdf', bytes: Buffer.alloc(0) }], /empty/],
  ])('%s is attachment_rejected and nothing is posted', async (_name, files, message) => {
    const before = sim.server.requests.length;
    const sub = submission({ screeningAnswers: answers() }, files);
    const error = await rejection(recruiteeConnector.submitApplication(sub, credentials));
    expect(error).toMatchObject({ kind: 'attachment_rejected', name: 'AttachmentRejectedError' });
    expect(error.message).toMatch(message);
    for (const f of files) expect(error.message).not.toContain(f.name);
    expect(posts(before)).toEqual([]);
    if ('size' in files[0]) expect(sub.opened).toEqual([]);
  });

  test('a file Recruitee itself refuses (422 on the file) is attachment_rejected', async () => {
    sim.maxBytes = 8;
    await expect(recruiteeConnector.submitApplication(submission({ screeningAnswers: answers() }), credentials)).rejects.toMatchObject({
      kind: 'attachment_rejected',
    });
  });
});
