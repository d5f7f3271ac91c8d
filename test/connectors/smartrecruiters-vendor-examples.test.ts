/**
 * The SmartRecruiters simulator checked against SmartRecruiters' own pages, without our connector (P275): each
 * request is the vendor's documented example, rebuilt from the fields its page documents (the page in a
 * comment), sent with fetch; the simulator must answer as the page documents (status, body shape), and the
 * shapes our connector used to send (records without `fields`, `web.linkedin`) must be refused with the
 * documented status and message. Where a page gives no error body, the simulator's assumed one
 * (`{errors: [{code, message}]}`, 400) is what is checked, as docs/connectors/smartrecruiters.md says.
 */
import { startSmartRecruitersSimulator, type SmartRecruitersSimulator } from '../simulators/smartrecruiters.js';

const KEY = 'sr-vendor-key-0123456789abcdef';
const UUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const PDF = Buffer.from('%PDF-1.4\nvendor example\n%%EOF');
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00]);

let sim: SmartRecruitersSimulator;
let base: string;

beforeAll(async () => {
  sim = await startSmartRecruitersSimulator();
  base = sim.env.SMARTRECRUITERS_API_URL;
  sim.companies.set('AcmeVendor', {
    identifier: 'AcmeVendor',
    apiKey: KEY,
    postings: [
      {
        id: '743999900000001',
        uuid: UUID,
        name: 'Software Engineer',
        questions: [
          { id: 'q-why', label: 'Why us?', fields: [{ id: 'f-why', label: 'Why us?', type: 'TEXTAREA', required: true }] },
          // The guide's complex, repeatable example: "Language" and "Level" for a "Languages" question.
          {
            id: 'q-languages',
            label: 'Languages',
            repeatable: true,
            fields: [
              { id: 'language', label: 'Language', type: 'INPUT_TEXT', required: true },
              { id: 'level', label: 'Level', type: 'SINGLE_SELECT', values: ['native', 'fluent'].map((id) => ({ id, label: id })) },
            ],
          },
        ],
      },
    ],
  });
});
afterAll(() => sim.server.stop());
// SmartRecruiters allows 10 requests per second per credential, and so does the simulator: the tests keep under it.
beforeEach(() => new Promise((resolve) => setTimeout(resolve, 150)));

const apply = (body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${base}/postings/${UUID}/candidates`, {
    method: 'POST',
    headers: { 'X-SmartToken': KEY, 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });

async function json(response: Response) {
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/**
 * The documented request of developers.smartrecruiters.com/docs/partners-post-an-application (required
 * firstName, lastName, email; consentDecisions; attachments in Base64) and of the reference
 * developers.smartrecruiters.com/reference/applications-2 (phoneNumber, location, web.linkedIn,
 * answers[].records[].fields).
 */
function documentedApplication(email: string) {
  return {
    firstName: 'Grace',
    lastName: 'Hopper',
    email,
    phoneNumber: '+1 555 0100',
    location: { country: 'United States', countryCode: 'us', city: 'New York' },
    web: {
      linkedIn: 'https://www.linkedin.com/in/grace',
      facebook: 'https://facebook.com/grace',
      twitter: 'https://twitter.com/grace',
      website: 'https://grace.dev',
      skype: 'grace.hopper',
    },
    consentDecisions: { SMART_RECRUIT: true, SMART_CRM: false },
    answers: [
      { id: 'q-why', records: [{ fields: { 'f-why': ['Compilers.'] } }] },
      {
        id: 'q-languages',
        records: [{ fields: { language: ['English'], level: ['native'] } }, { fields: { language: ['German'], level: ['fluent'] } }],
      },
    ],
    attachments: [
      { fileName: 'resume.pdf', mimeType: 'application/pdf', fileContent: PDF.toString('base64') },
      { fileName: 'portfolio.png', mimeType: 'image/png', fileContent: PNG.toString('base64') },
    ],
  };
}

describe('Posting API (dev.smartrecruiters.com/customer-api/posting-api/endpoints/postings/)', () => {
  test('the list: {offset, limit, totalFound, content}, public (no key), limit at most 100', async () => {
    const list = await json(await fetch(`${base}/v1/companies/AcmeVendor/postings?limit=10&offset=0`));
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({ offset: 0, limit: 10, totalFound: 1 });
    const [entry] = list.body.content as Record<string, unknown>[];
    expect(entry).toMatchObject({ id: '743999900000001', uuid: UUID, name: 'Software Engineer', ref: expect.stringMatching(/^http/) });
    // "some fields might not be set. To get full object use ref".
    expect(entry).not.toHaveProperty('jobAd');
    expect((await fetch(`${base}/v1/companies/AcmeVendor/postings?limit=101`)).status).toBe(400);
  });

  test('one posting: the job ad sections; an unknown one is 404', async () => {
    const posting = await json(await fetch(`${base}/v1/companies/AcmeVendor/postings/743999900000001`));
    expect(posting.status).toBe(200);
    expect(Object.keys((posting.body.jobAd as { sections: object }).sections)).toEqual(
      expect.arrayContaining(['companyDescription', 'jobDescription', 'additionalInformation']),
    );
    expect((await fetch(`${base}/v1/companies/AcmeVendor/postings/404404`)).status).toBe(404);
  });
});

describe('Application API', () => {
  test('configuration (developers.smartrecruiters.com/docs/partners-get-application-screening-questions-and-privacy-policies)', async () => {
    const config = await json(await fetch(`${base}/postings/${UUID}/configuration`, { headers: { 'X-SmartToken': KEY } }));
    expect(config.status).toBe(200);
    expect(Object.keys(config.body).sort()).toEqual(['privacyPolicies', 'questions', 'settings']);
    const languages = (config.body.questions as Record<string, unknown>[])[1];
    expect(languages).toMatchObject({ id: 'q-languages', label: 'Languages', repeatable: true });
    expect(Object.keys((languages.fields as object[])[1]).sort()).toEqual(['id', 'label', 'required', 'type', 'values']);
    expect(config.body.settings).toEqual({ avatarUploadAvailable: expect.any(Boolean), conditionals: [] });
    expect(config.body.privacyPolicies).toEqual([{ url: expect.stringMatching(/^https:/), orgName: expect.any(String) }]);
    // "X-SmartToken HTTP header must be present in each request".
    expect((await fetch(`${base}/postings/${UUID}/configuration`)).status).toBe(401);
  });

  test('the documented application is created: 201 with the candidate id', async () => {
    const created = await json(await apply(documentedApplication('grace.vendor@example.com')));
    expect(created).toEqual({
      status: 201,
      body: { id: expect.any(String), createdOn: expect.any(String), candidatePortalUrl: expect.stringMatching(/^https:/) },
    });
    expect(sim.applications.at(-1)!.body.answers).toEqual(documentedApplication('x').answers);
  });

  test('single consent: SINGLE alone is taken; SINGLE mixed with the scopes is refused (partners-post-an-application)', async () => {
    const single = { ...documentedApplication('single.vendor@example.com'), consentDecisions: { SINGLE: true } };
    expect((await apply(single)).status).toBe(201);
    const mixed = { ...documentedApplication('mixed.vendor@example.com'), consentDecisions: { SINGLE: true, SMART_CRM: true } };
    expect(await json(await apply(mixed))).toEqual({
      status: 400,
      body: { errors: [{ code: 'VALIDATION_ERROR', message: expect.any(String) }] },
    });
  });

  const refusal = (message: string, code = 'VALIDATION_ERROR') => ({ status: 400, body: { errors: [{ code, message }] } });

  test.each([
    [
      'answers without the fields wrapper (the old connector shape)',
      { answers: [{ id: 'q-why', records: [{ 'f-why': ['Compilers.'] }] }, documentedApplication('').answers[1]] },
      refusal("Values for the following screening questions' answers are incorrect: q-why."),
    ],
    [
      'a required question left out',
      { answers: [documentedApplication('').answers[1]] },
      refusal('The following screening questions are required: q-why.'),
    ],
    [
      'an option id the field does not have',
      {
        answers: [
          documentedApplication('').answers[0],
          { id: 'q-languages', records: [{ fields: { language: ['Go'], level: ['Fluent'] } }] },
        ],
      },
      refusal("Values for the following screening questions' answers are incorrect: q-languages."),
    ],
    [
      'a text answer over 4000 bytes',
      { answers: [{ id: 'q-why', records: [{ fields: { 'f-why': ['ü'.repeat(2001)] } }] }, documentedApplication('').answers[1]] },
      refusal("Values for the following screening questions' answers are incorrect: q-why."),
    ],
    [
      'web.linkedin instead of web.linkedIn (the old connector key)',
      { web: { linkedin: 'https://www.linkedin.com/in/grace' } },
      refusal('Unrecognized field(s): web.linkedin.', 'UNRECOGNIZED_FIELD'),
    ],
    [
      'a property the reference does not list',
      { coverLetter: 'Dear team' },
      refusal('Unrecognized field(s): coverLetter.', 'UNRECOGNIZED_FIELD'),
    ],
    [
      'a file as {name, content} instead of {fileName, mimeType, fileContent}',
      { attachments: [{ name: 'resume.pdf', content: PDF.toString('base64') }] },
      refusal('Attachment must have exactly fileName, mimeType and fileContent.', 'INVALID_ATTACHMENT'),
    ],
    [
      'a file type outside PDF, DOC(X), RTF, JPG, PNG',
      { attachments: [{ fileName: 'resume.txt', mimeType: 'text/plain', fileContent: Buffer.from('hi').toString('base64') }] },
      refusal('Attachment type is not supported.', 'INVALID_ATTACHMENT'),
    ],
    [
      'a file over 2 MB',
      {
        attachments: [
          {
            fileName: 'big.pdf',
            mimeType: 'application/pdf',
            fileContent: Buffer.concat([PDF, Buffer.alloc(2 * 1024 * 1024)]).toString('base64'),
          },
        ],
      },
      refusal('Attachment size exceeds 2 MB.', 'INVALID_ATTACHMENT'),
    ],
    [
      'a PDF whose Base64 is not a PDF (help centre: "failed to load PDF file")',
      { attachments: [{ fileName: 'resume.pdf', mimeType: 'application/pdf', fileContent: Buffer.from('not a pdf').toString('base64') }] },
      refusal('failed to load PDF file', 'INVALID_ATTACHMENT'),
    ],
    ['no lastName (a required field)', { lastName: undefined }, refusal('lastName is required.')],
  ])('%s is refused with 400 and the documented message', async (_name, change, expected) => {
    const before = sim.applications.length;
    const body = { ...documentedApplication(`refused.${sim.server.requests.length}@example.com`), ...change };
    expect(await json(await apply(body))).toEqual(expected);
    expect(sim.applications.length).toBe(before);
  });

  test('a wrong key is 401 before the posting is looked up; a path SmartRecruiters does not have is 404', async () => {
    expect((await apply(documentedApplication('key@example.com'), { 'X-SmartToken': 'sr-wrong-key-0123456789abcdef' })).status).toBe(401);
    const unknownPath = await fetch(`${base}/v1/postings/${UUID}/candidates`, {
      method: 'POST',
      headers: { 'X-SmartToken': KEY, 'Content-Type': 'application/json' },
      body: JSON.stringify(documentedApplication('path@example.com')),
    });
    expect(unknownPath.status).toBe(404);
    await unknownPath.arrayBuffer();
  });

  test('every answer carries the rate-limit headers (developers.smartrecruiters.com/docs/rate-limiting), no Retry-After', async () => {
    const response = await fetch(`${base}/postings/${UUID}/configuration`, { headers: { 'X-SmartToken': KEY } });
    await response.arrayBuffer();
    for (const header of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-concurrent-limit', 'x-ratelimit-concurrent-remaining'])
      expect(response.headers.get(header)).toMatch(/^\d+$/);
    expect(response.headers.get('retry-after')).toBeNull();
  });
});
