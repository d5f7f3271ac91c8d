/**
 * The Recruitee simulator checked against Recruitee's own pages, without our connector (P276): the documented
 * example requests, rebuilt from the fields the pages document, go straight to the simulator with fetch, and
 * it must answer as the pages document; the old shapes our connector used to send must be refused.
 * - R = https://docs.recruitee.com/reference/offersoffer_idcandidates
 * - C = https://career.recruitee.com/docs/index.html
 */
import { startRecruiteeSimulator, type RecruiteeSimulator } from '../simulators/recruitee.js';

let sim: RecruiteeSimulator;
const base = () => `${sim.server.url}/recruitee/company/api`;
const PDF = Buffer.from('%PDF-1.5\nexample resume\n%%EOF');

beforeAll(async () => {
  sim = await startRecruiteeSimulator();
});
afterAll(() => sim.server.stop());

beforeEach(() => {
  sim.candidates.length = 0;
  sim.sites.set('company', {
    company: 'company',
    offers: [
      // C's example path: /api/offers/operations-manager/candidates; its questions are those its example answers.
      {
        id: 1,
        slug: 'operations-manager',
        title: 'Operations Manager',
        optionsCv: 'optional',
        questions: [
          { id: 5, kind: 'string', body: 'Do you like pizza?' },
          { id: 8, kind: 'text', body: 'What are your strengths?' },
          { id: 9, kind: 'single_choice', body: 'Your favorite color?', options: ['Blue', 'Red'] },
          { id: 10, kind: 'multi_choice', body: 'What kind of food do you like?', options: ['Pizza', 'Hamburger', 'Sushi'] },
          { id: 11, kind: 'file', body: 'Additional file' },
        ],
      },
      // R's open_questions example (GET /offers) and its form-data answer example (question 232583).
      {
        id: 2,
        slug: 'sales-manager',
        title: 'Sales Manager',
        questions: [
          { id: 286356, kind: 'string', body: 'Desired Salary', required: true },
          { id: 286357, kind: 'string', body: 'Native Language', required: true },
          { id: 232583, kind: 'string', body: 'Where did you find us?' },
          { id: 300001, kind: 'boolean', body: 'Do you have a work permit?' },
        ],
      },
      { id: 3, slug: 'office-assistant', title: 'Office Assistant', optionsPhone: 'off', optionsCv: 'off' },
    ],
  });
});

const post = (path: string, body: FormData | Record<string, unknown>) =>
  fetch(`${base()}${path}`, {
    method: 'POST',
    headers: body instanceof FormData ? { Accept: 'application/json' } : { Accept: 'application/json', 'Content-Type': 'application/json' },
    body: body instanceof FormData ? body : JSON.stringify(body),
  });

/** C's JSON request example, as documented (answer 11 with `remote_file_url`, which R does not list). */
const jsonExample = () => ({
  candidate: {
    name: 'John Smith',
    email: 'john.smith@example.com',
    phone: '987654321',
    cover_letter: 'Example cover letter',
    remote_photo_url: 'https://site.example.com/images/myimage.jpeg',
    remote_cv_url: 'https://site.example.com/resumes/myresume.pdf',
    open_question_answers_attributes: [
      { open_question_id: 5, content: 'Yes' },
      { open_question_id: 8, content: 'Responsibility' },
      { open_question_id: 9, content: 'Blue' },
      { open_question_id: 10, multi_content: ['Pizza', 'Hamburger'] },
      { open_question_id: 11, remote_file_url: 'https://site.example.com/files/additional_file.jpg' },
    ],
  },
});

/** R's form-data example: name, email, phone, the cv file and `candidate[open_question_answers_attributes][0][…]`. */
function formExample(): FormData {
  const form = new FormData();
  form.append('candidate[name]', 'John Smith');
  form.append('candidate[email]', 'john.smith@example.com');
  form.append('candidate[phone]', '987654321');
  form.append('candidate[cv]', new Blob([PDF], { type: 'application/pdf' }), 'myresume.pdf');
  form.append('candidate[open_question_answers_attributes][0][open_question_id]', '286356');
  form.append('candidate[open_question_answers_attributes][0][content]', '60000 EUR');
  form.append('candidate[open_question_answers_attributes][1][open_question_id]', '286357');
  form.append('candidate[open_question_answers_attributes][1][content]', 'English');
  form.append('candidate[open_question_answers_attributes][2][open_question_id]', '232583');
  form.append('candidate[open_question_answers_attributes][2][content]', 'I found it on Linkedin');
  return form;
}

/** R's form-data example with one more answer (question `id`, its `key` and `value`) as answer 3. */
function withAnswer(id: string, key: string, value: string): FormData {
  const form = formExample();
  form.append('candidate[open_question_answers_attributes][3][open_question_id]', id);
  form.append(`candidate[open_question_answers_attributes][3][${key}]`, value);
  return form;
}

describe('Recruitee simulator: the documented examples', () => {
  test('R: GET /offers carries each offer’s open_questions as documented ({id, kind, required, position, body, open_question_options})', async () => {
    const res = await fetch(`${base()}/offers/`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { offers: { slug: string; open_questions: unknown[] }[] };
    expect(body.offers.find((o) => o.slug === 'sales-manager')!.open_questions.slice(0, 2)).toEqual([
      { id: 286356, kind: 'string', required: true, position: 1, body: 'Desired Salary', open_question_options: [] },
      { id: 286357, kind: 'string', required: true, position: 2, body: 'Native Language', open_question_options: [] },
    ]);
  });

  test('R: the form-data example to /offers/:offer_slug/candidates is 201 with the documented candidate, no authorization', async () => {
    const res = await post('/offers/sales-manager/candidates', formExample());
    expect(res.status).toBe(201);
    const { candidate } = (await res.json()) as { candidate: Record<string, unknown> };
    expect(Object.keys(candidate)).toEqual([
      'id',
      'name',
      'phones',
      'emails',
      'photo_url',
      'photo_thumb_url',
      'updated_at',
      'created_at',
      'open_question_answers',
    ]);
    expect(candidate).toMatchObject({
      id: expect.any(Number),
      name: 'John Smith',
      phones: ['987654321'],
      emails: ['john.smith@example.com'],
    });
    expect(candidate.open_question_answers).toEqual([
      { id: expect.any(Number), question: 'Desired Salary', content: '60000 EUR', file_url: null },
      { id: expect.any(Number), question: 'Native Language', content: 'English', file_url: null },
      { id: expect.any(Number), question: 'Where did you find us?', content: 'I found it on Linkedin', file_url: null },
    ]);
  });

  test('C: the JSON example without the answer R does not document is 201 with C’s response (text cover letter, multi_content joined)', async () => {
    const example = jsonExample();
    example.candidate.open_question_answers_attributes.pop();
    const res = await post('/offers/operations-manager/candidates', example);
    expect(res.status).toBe(201);
    const { candidate } = (await res.json()) as { candidate: { open_question_answers: unknown[] } };
    expect(candidate).toMatchObject({ name: 'John Smith', phones: ['987654321'], emails: ['john.smith@example.com'] });
    expect(candidate.open_question_answers).toEqual([
      { id: expect.any(Number), question: 'Do you like pizza?', content: 'Yes', file_url: null },
      { id: expect.any(Number), question: 'What are your strengths?', content: 'Responsibility', file_url: null },
      { id: expect.any(Number), question: 'Your favorite color?', content: 'Blue', file_url: null },
      { id: expect.any(Number), question: 'What kind of food do you like?', content: 'Pizza, Hamburger', file_url: null },
    ]);
    expect(sim.candidates.at(-1)!.coverLetter).toBe('Example cover letter');
  });

  test('R: a file question’s answer is the uploaded `file`; the answer carries its file_url', async () => {
    const form = new FormData();
    form.append('candidate[name]', 'John Smith');
    form.append('candidate[email]', 'john.smith@example.com');
    form.append('candidate[phone]', '987654321');
    form.append('candidate[open_question_answers_attributes][0][open_question_id]', '11');
    form.append(
      'candidate[open_question_answers_attributes][0][file]',
      new Blob([PDF], { type: 'application/pdf' }),
      'additional_file.pdf',
    );
    const res = await post('/offers/operations-manager/candidates', form);
    expect(res.status).toBe(201);
    const { candidate } = (await res.json()) as { candidate: { open_question_answers: { file_url: unknown }[] } };
    expect(candidate.open_question_answers[0].file_url).toEqual(expect.stringMatching(/^https:\/\//));
  });

  test('R: name and email are required even when the offer turns phone and CV off; then they are all it needs', async () => {
    const only = (fields: Record<string, string>) => {
      const form = new FormData();
      for (const [k, v] of Object.entries(fields)) form.append(`candidate[${k}]`, v);
      return form;
    };
    expect((await post('/offers/office-assistant/candidates', only({ name: 'Jane Doe', email: 'jane@example.com' }))).status).toBe(201);
    const res = await post('/offers/office-assistant/candidates', only({ name: 'Jane Doe' }));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: ["Email can't be blank"] });
    // By default phone and CV are required too (R).
    const strict = await post('/offers/sales-manager/candidates', only({ name: 'Jane Doe', email: 'jane@example.com' }));
    expect(strict.status).toBe(422);
    expect(((await strict.json()) as { error: string[] }).error).toEqual(
      expect.arrayContaining(["Phone can't be blank", "Cv can't be blank"]),
    );
  });
});

describe('Recruitee simulator: what the pages do not allow is refused', () => {
  test('R names the offer by its slug: the numeric id in the path is 404', async () => {
    const res = await post('/offers/2/candidates', formExample());
    expect(res.status).toBe(404);
    expect(await res.json()).toEqual({ error: 'Not found' });
    expect(sim.candidates).toHaveLength(0);
  });

  test('the connector’s old cover-letter file part `candidate[cover_letter_file]` is refused (422); R and C document only the text cover_letter', async () => {
    const form = formExample();
    form.append('candidate[cover_letter_file]', new Blob([PDF], { type: 'application/pdf' }), 'letter.pdf');
    const res = await post('/offers/sales-manager/candidates', form);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: ['Cover letter file is not a permitted field'] });
  });

  test('a file answer as `remote_file_url` (the connector’s old multipart shape, and C’s old JSON example) is refused (422): R documents `file`', async () => {
    const form = new FormData();
    form.append('candidate[name]', 'John Smith');
    form.append('candidate[email]', 'john.smith@example.com');
    form.append('candidate[phone]', '987654321');
    form.append('candidate[open_question_answers_attributes][0][open_question_id]', '11');
    form.append('candidate[open_question_answers_attributes][0][remote_file_url]', 'https://site.example.com/files/additional_file.jpg');
    const multipart = await post('/offers/operations-manager/candidates', form);
    expect(multipart.status).toBe(422);
    expect(await multipart.json()).toEqual({
      error: ['Remote file url is not a permitted field', "Open question answers file can't be blank"],
    });
    const json = await post('/offers/operations-manager/candidates', jsonExample());
    expect(json.status).toBe(422);
    expect(((await json.json()) as { error: string[] }).error).toEqual([
      'Remote file url is not a permitted field',
      "Open question answers file can't be blank",
    ]);
    expect(sim.candidates).toHaveLength(0);
  });

  test('R: a boolean question takes `flag`; answered with `content` it is refused (422)', async () => {
    const res = await post('/offers/sales-manager/candidates', withAnswer('300001', 'content', 'Yes'));
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: ["Open question answers flag can't be blank"] });
    expect((await post('/offers/sales-manager/candidates', withAnswer('300001', 'flag', 'true'))).status).toBe(201);
  });

  test('an undocumented candidate field (an unknown key) is refused (422), never silently dropped', async () => {
    const form = formExample();
    form.append('candidate[source]', 'Job board');
    const res = await post('/offers/sales-manager/candidates', form);
    expect(res.status).toBe(422);
    expect(await res.json()).toEqual({ error: ['Source is not a permitted field'] });
  });
});
