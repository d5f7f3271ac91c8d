/**
 * The pure parts of the `indeed` apply format (P204): the X-Indeed-Signature check and the mapping of Indeed
 * Apply's JSON onto our application fields (the HTTP path is test/http/apply-webhook.test.ts).
 */
import { createHmac } from 'node:crypto';
import { fromIndeedApplication, indeedSignatureValid } from '#http/indeed-apply.js';

const SECRET = 'indeed-api-secret-0123456789';
const sign = (body: Buffer | string, secret = SECRET) => createHmac('sha1', secret).update(body).digest('base64');

describe('X-Indeed-Signature', () => {
  const body = Buffer.from('{"applicant":{"fullName":"Zoë Müller","email":"z@example.com"}}', 'utf8');

  test('the Base64 HMAC-SHA1 of the raw bytes under the API secret verifies', () => {
    expect(indeedSignatureValid(SECRET, body, sign(body))).toBe(true);
    expect(indeedSignatureValid(SECRET, body, ` ${sign(body)}\n`)).toBe(true);
  });

  test('another secret, another body, a truncated or missing signature does not', () => {
    expect(indeedSignatureValid(SECRET, body, sign(body, 'another-secret-1'))).toBe(false);
    expect(indeedSignatureValid(SECRET, Buffer.concat([body, Buffer.from(' ')]), sign(body))).toBe(false);
    expect(indeedSignatureValid(SECRET, body, sign(body).slice(0, 20))).toBe(false);
    expect(indeedSignatureValid(SECRET, body, undefined)).toBe(false);
    expect(indeedSignatureValid(SECRET, body, '')).toBe(false);
  });
});

describe('mapping', () => {
  test('applicant, resume, cover letter, screener answers, id, time and locale become our fields', () => {
    const fields = fromIndeedApplication({
      id: 'abc123',
      appliedOnMillis: 1324051581711,
      locale: 'de_DE',
      applicant: {
        fullName: 'Zoë Müller',
        firstName: 'Zoë',
        lastName: 'Müller',
        email: 'z@example.com',
        phoneNumber: '+49 30 0000',
        coverletter: 'Hallo',
        resume: { file: { fileName: 'cv.pdf', contentType: 'application/pdf', data: 'JVBERi0=' }, text: 'ignored' },
      },
      questionsAndAnswers: {
        questionsAndAnswers: [
          { question: { id: 'years', question: 'Years?' }, answer: { value: 5 } },
          { question: { question: 'Languages?' }, answer: { values: ['de', 'en'] } },
          'not an entry',
        ],
      },
      analytics: { ignored: true },
    });
    expect(fields).toEqual({
      candidate: {
        email: 'z@example.com',
        full_name: 'Zoë Müller',
        first_name: 'Zoë',
        last_name: 'Müller',
        phone: '+49 30 0000',
        language: 'de_DE',
      },
      attachments: [
        { type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: 'JVBERi0=' },
        { type: 'cover_letter', name: 'cover-letter.txt', content_type: 'text/plain', data: Buffer.from('Hallo').toString('base64') },
      ],
      screening_questions: [
        { id: 'years', question: 'Years?', answer: '5' },
        { id: 'q2', question: 'Languages?', answer: 'de, en' },
      ],
      partner_application_id: 'abc123',
      applied_at: '2011-12-16T16:06:21.711Z',
    });
  });

  test('a missing applicant, e-mail or name is a 400 naming the key', () => {
    const missing = (body: Record<string, unknown>) => {
      try {
        fromIndeedApplication(body);
      } catch (error) {
        return { status: (error as { statusCode: number }).statusCode, errors: (error as { errors: unknown }).errors };
      }
      return undefined;
    };
    expect(missing({})).toEqual({ status: 400, errors: { applicant: ['Required.'] } });
    expect(missing({ applicant: { fullName: 'A B' } })).toEqual({ status: 400, errors: { 'applicant.email': ['Required.'] } });
    expect(missing({ applicant: { email: 'a@example.com', firstName: 'A' } })).toEqual({
      status: 400,
      errors: { 'applicant.fullName': ['Required.'] },
    });
    expect(missing({ applicant: { email: 'a@example.com', firstName: 'A', lastName: 'B' } })).toBeUndefined();
  });
});
