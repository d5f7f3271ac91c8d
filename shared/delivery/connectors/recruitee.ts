/**
 * Recruitee Careers Site API (docs/connectors/recruitee.md; P213, P276). No credentials: the API lives on the
 * company's careers-site address (`https://{company}.recruitee.com/api/...`) and needs no authorization, so the
 * one credential field is the careers-site subdomain. Jobs: `GET /api/offers/` (recruitee-jobs.ts).
 *
 * Applications, as docs.recruitee.com/reference/offersoffer_idcandidates and career.recruitee.com/docs/index.html
 * document them: multipart POST to `/api/offers/{offer_slug}/candidates`, the offer named by its **slug** (the
 * job's `ats_apply_key`, stored at import; a job imported before that has none and the offers list is read once
 * to find it), with `candidate[name]`, `[email]`, `[phone]`, the text `candidate[cover_letter]`, the CV as the
 * `candidate[cv]` file and answers as `candidate[open_question_answers_attributes][i][…]` with `open_question_id`
 * and `content`, `multi_content[]`, `flag` or `file` by question kind; 201 `{candidate:{id}}`. Recruitee
 * documents no cover-letter file: a cover letter that is text goes as `cover_letter`, and every other file
 * (a cover-letter document, certificates, work samples, a photo, a second CV) goes as the `file` answer of a
 * matching file question of the offer, else it is refused as attachment_rejected (P210), never dropped. A
 * careers site that no longer exists (404 on the company) is this connector's "rejected credentials".
 */
import type { CompanyRecord } from '#companies/company-schema.js';
import {
  ConnectorError,
  type AtsConnector,
  type AtsCredentials,
  type AttachmentLimits,
  type Submission,
  type SubmissionAttachment,
} from '#delivery/connectors/connector.js';
import { atsFetch, attachmentBytes, errorForStatus, jsonBody, segment } from '#delivery/connectors/http.js';
import { candidateName, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';
import {
  ATS,
  careersTokenRefused,
  listOffers,
  mapRecruiteeOffer,
  openQuestions,
  siteHeaders,
  siteUrl,
  slugOf,
  type Offer,
  type OpenQuestion,
} from '#delivery/connectors/recruitee-jobs.js';

export { mapRecruiteeOffer, recruiteeEmploymentType } from '#delivery/connectors/recruitee-jobs.js';

import { ATTACHMENTS, PACING, recruiteeDescriptor } from '#delivery/connectors/recruitee-descriptor.js';
export { RECRUITEE_FILE_EXTENSIONS } from '#delivery/connectors/recruitee-descriptor.js';
import { checkAtsApiToken, readRecruiteeOutcome } from '#delivery/connectors/recruitee-outcomes.js';

/** A cover letter that is text goes in the `cover_letter` text field; 64 KiB of text is our bound (assumed, P276). */
const COVER_LETTER_TEXT: AttachmentLimits = { maxBytes: 64 * 1024 };

/**
 * Which file question of the offer takes a file of our type (the first CV goes to `candidate[cv]`, a text
 * cover letter to `candidate[cover_letter]`). Matched on the question's `body`, the text the careers site shows.
 */
const QUESTION_FOR: Record<string, RegExp> = {
  cv: /\b(cv|resume|résumé|lebenslauf)\b/i,
  cover_letter: /cover|letter|motivation|anschreiben/i,
  certificate: /certific|diploma|degree|zeugnis|transcript/i,
  work_sample: /portfolio|sample|work/i,
  photo: /photo|picture|foto|image/i,
  other: /other|additional|document|attachment|upload/i,
};
const isText = (a: SubmissionAttachment) => /^text\/plain\b/i.test(a.content_type);

/** Where each file goes: the CV field, the cover-letter text, or the `file` answer of one of the offer's file questions. */
interface Placement {
  cv?: SubmissionAttachment;
  coverLetter?: SubmissionAttachment;
  answers: { question: string; attachment: SubmissionAttachment }[];
}

/** The files an application can carry without the offer's file questions: one CV and one cover letter that is text. */
function placeWithoutQuestions(attachments: readonly SubmissionAttachment[]) {
  const cv = attachments.find((a) => a.type === 'cv');
  const coverLetter = attachments.find((a) => a.type === 'cover_letter' && isText(a));
  return { cv, coverLetter, rest: attachments.filter((a) => a !== cv && a !== coverLetter) };
}

/** Places every file, or refuses the first that has no place (P210): decided before a byte is read. */
function placeFiles(attachments: readonly SubmissionAttachment[], questions: readonly OpenQuestion[]): Placement {
  const { cv, coverLetter, rest } = placeWithoutQuestions(attachments);
  const free = questions.filter((q) => q.kind === 'file');
  const answers: Placement['answers'] = [];
  for (const attachment of rest) {
    const pattern = Object.hasOwn(QUESTION_FOR, attachment.type) ? QUESTION_FOR[attachment.type] : QUESTION_FOR.other;
    const question = free.find((q) => pattern.test(String(q.body ?? '')));
    if (!question)
      throw new ConnectorError(
        'attachment_rejected',
        `${ATS}’s careers site takes one CV file, the cover letter as text, and other files only as answers to the offer’s file questions; the offer has no file question for the ${attachment.type} file.`,
      );
    free.splice(free.indexOf(question), 1);
    answers.push({ question: String(question.id), attachment });
  }
  return { cv, coverLetter, answers };
}

async function fileBlob(attachment: SubmissionAttachment): Promise<Blob> {
  const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
  if (bytes.length === 0)
    throw new ConnectorError('attachment_rejected', `${ATS} refuses empty files; the ${attachment.type} file is empty.`);
  return new Blob([bytes], { type: attachment.content_type });
}

async function coverLetterText(attachment: SubmissionAttachment): Promise<string> {
  const bytes = await attachmentBytes(ATS, attachment, COVER_LETTER_TEXT);
  try {
    const letter = new TextDecoder('utf-8', { fatal: true }).decode(bytes).trim();
    if (letter) return letter;
  } catch {
    // not UTF-8: refused below
  }
  throw new ConnectorError(
    'attachment_rejected',
    `${ATS} takes the cover letter as text; the cover_letter file is empty or not UTF-8 text.`,
  );
}

/**
 * The multipart body of an application (exported for the tests). `questions` are the offer's open questions,
 * needed only when a file goes as a question's `file` answer. Files without a place are refused first.
 */
export async function recruiteeApplicationForm(submission: Submission, questions: readonly OpenQuestion[] = []): Promise<FormData> {
  const placed = placeFiles(submission.attachments, questions);
  const filled = new Set(placed.answers.map((a) => a.question));
  const form = new FormData();
  form.append('candidate[name]', candidateName(submission.candidate).full);
  form.append('candidate[email]', String(submission.candidate.email ?? ''));
  const phone = text(submission.candidate.phone);
  if (phone) form.append('candidate[phone]', phone);
  if (placed.coverLetter) form.append('candidate[cover_letter]', await coverLetterText(placed.coverLetter));
  if (placed.cv) form.append('candidate[cv]', await fileBlob(placed.cv), placed.cv.name);
  let index = 0;
  const next = (id: string) => {
    const base = `candidate[open_question_answers_attributes][${index++}]`;
    form.append(`${base}[open_question_id]`, id);
    return base;
  };
  for (const answer of submission.screeningAnswers) {
    const id = String(answer.id ?? '').replace(/^open_question_/, '');
    if (!/^\d+$/.test(id)) continue;
    const value = String(answer.answer ?? '');
    const type = String(answer.answer_type ?? '');
    if (type === 'file' || type === 'video') {
      // A file question takes only an uploaded `file` (not a URL, not text): a file of the application fills it.
      // An empty answer carries nothing to lose.
      if (filled.has(id) || !value.trim()) continue;
      throw new ConnectorError(
        'invalid_data',
        `${ATS} takes the answer to a file question only as an uploaded file; question ${id} has a text answer and no file of the application fits it.`,
      );
    }
    const base = next(id);
    if (type === 'multi_select') for (const choice of listAnswer(value)) form.append(`${base}[multi_content][]`, choice);
    // Boolean and legal (consent) questions take `flag`.
    else if (type === 'boolean' || type === 'consent') form.append(`${base}[flag]`, yesNo(value) ? 'true' : 'false');
    else form.append(`${base}[content]`, value);
  }
  for (const { question, attachment } of placed.answers)
    form.append(`${next(question)}[file]`, await fileBlob(attachment), attachment.name);
  return form;
}

/** Every message text of an error body (`error`/`errors`/`message`, as a string, a list or an object of lists). */
function errorTexts(body: unknown): { texts: string[]; keys: string[] } {
  const texts: string[] = [];
  const keys: string[] = [];
  const walk = (value: unknown, depth: number) => {
    if (depth > 3) return;
    if (typeof value === 'string') texts.push(value);
    else if (Array.isArray(value)) for (const v of value) walk(v, depth + 1);
    else if (value && typeof value === 'object')
      for (const [key, v] of Object.entries(value)) {
        if (/^[a-z_.[\]0-9]{1,60}$/i.test(key)) keys.push(key);
        walk(v, depth + 1);
      }
  };
  if (body && typeof body === 'object') {
    const b = body as Record<string, unknown>;
    for (const name of ['error', 'errors', 'message']) if (name in b) walk(b[name], 0);
  } else if (typeof body === 'string') texts.push(body);
  return { texts, keys };
}

/** The fields an error names, from a fixed list (the ATS's own text may carry personal data and is not repeated). */
function namedFields(texts: string[], keys: string[]): string {
  const haystack = [...texts, ...keys].join('\n');
  const found = (
    [
      ['name', /\bname\b/i],
      ['email', /e-?mail/i],
      ['phone', /phone/i],
      ['cv', /\bcv\b|resume/i],
      ['cover letter', /cover.?letter/i],
      ['screening answers', /open.?question|answer/i],
    ] as const
  )
    .filter(([, pattern]) => pattern.test(haystack))
    .map(([label]) => label);
  return found.length ? `: ${found.join(', ')}` : '';
}

/** A refused application (not 2xx, not 404) → the kind the sync worker acts on. */
function failure(response: Response, body: unknown): ConnectorError {
  const status = response.status;
  const { texts, keys } = errorTexts(body);
  const all = texts.join('\n');
  const fields = namedFields(texts, keys);
  if (status === 413) return new ConnectorError('attachment_rejected', `${ATS} refused the files as too large (413).`);
  if (status === 422 || status === 400) {
    if (/already (applied|exists|been taken)|has already|duplicate/i.test(all))
      return new ConnectorError('duplicate', `${ATS}: the candidate already applied (${status}).`);
    if (/(closed|not published|unpublished|no longer|not accepting|expired)/i.test(all))
      return new ConnectorError('job_not_published', `${ATS}: the offer is closed (${status}).`);
    if (
      /(cv|file|attachment|resume|cover.?letter).{0,40}(too (big|large)|size|format|type|extension|invalid)|(too (big|large)|file size)/i.test(
        all,
      )
    )
      return new ConnectorError('attachment_rejected', `${ATS} refused a file (${status}${fields}).`);
    return new ConnectorError('invalid_data', `${ATS} refused the application (${status}${fields}).`);
  }
  return errorForStatus(ATS, response, fields.slice(2));
}

const notPublished = () => new ConnectorError('job_not_published', `${ATS} does not publish the offer (404).`);

/** The offer of the job in the careers site's list, by its numeric id; absent when the offer is not published. */
const offerOf = (offers: readonly Offer[], submission: Submission) => offers.find((o) => String(o.id) === submission.jobExternalId);

/** Does the application carry a file that only one of the offer's file questions can take? */
const needsFileQuestions = (submission: Submission) => placeWithoutQuestions(submission.attachments).rest.length > 0;

async function postApplication(credentials: AtsCredentials, slug: string, form: FormData): Promise<Response> {
  return atsFetch(
    ATS,
    siteUrl(credentials, `/api/offers/${segment(slug)}/candidates`),
    { method: 'POST', headers: siteHeaders(credentials), body: form },
    PACING,
  );
}

export const recruiteeConnector: AtsConnector = {
  ...recruiteeDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const offers = await listOffers(credentials);
    // The careers site lists published offers only; one carrying another status is left out.
    return offers.filter((o) => o.status === undefined || o.status === null || o.status === 'published').map(mapRecruiteeOffer);
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    // The offers list, read at most once before the POST: for the slug of a job imported without one (P276),
    // and for the offer's file questions when a file can go nowhere else.
    let offer: Offer | undefined;
    if (!submission.jobApplyKey || needsFileQuestions(submission)) {
      offer = offerOf(await listOffers(credentials), submission);
      if (!offer) throw notPublished();
    }
    let slug = submission.jobApplyKey ?? (offer ? slugOf(offer) : null);
    if (!slug) throw new ConnectorError('invalid_data', `${ATS} lists the offer without a slug to apply to.`);
    const form = await recruiteeApplicationForm(submission, offer ? openQuestions(offer) : []);
    let response = await postApplication(credentials, slug, form);
    if (response.status === 404) {
      await response.arrayBuffer().catch(() => undefined);
      // The offer is gone, the careers site is (the list answers 404: credentials_rejected), or the slug changed
      // with the title since the import: then the same application goes once more to the offer's new slug.
      const listed = offerOf(await listOffers(credentials), submission);
      const current = listed ? slugOf(listed) : null;
      if (!current || current === slug) throw notPublished();
      slug = current;
      response = await postApplication(credentials, slug, form);
      if (response.status === 404) {
        await response.arrayBuffer().catch(() => undefined);
        throw notPublished();
      }
    }
    if (response.status === 401) {
      await response.arrayBuffer().catch(() => undefined);
      throw careersTokenRefused(credentials);
    }
    const body = await jsonBody(response);
    if (response.ok) {
      const id = (body as { candidate?: { id?: unknown } } | undefined)?.candidate?.id;
      // 201 Created confirms the application; the id is kept when the body carries it.
      return { externalId: typeof id === 'number' || typeof id === 'string' ? String(id) : null };
    }
    throw failure(response, body);
  },

  async validateCredentials(credentials: AtsCredentials) {
    // The offers list proves the careers site; 200 with something else is not taken for proof.
    try {
      await listOffers(credentials);
    } catch (error) {
      if (error instanceof ConnectorError && error.kind === 'invalid_data')
        throw new ConnectorError(
          'credentials_rejected',
          `${ATS}: the careers-site address did not answer as a Recruitee careers site.`,
          undefined,
          'company',
        );
      if (error instanceof ConnectorError && error.kind === 'credentials_rejected' && !error.field)
        throw new ConnectorError('credentials_rejected', error.message, undefined, 'company');
      throw error;
    }
    // P351: the optional ATS API token, checked only when given (a refusal names `api_token`).
    await checkAtsApiToken(credentials);
  },

  // P352: only for a company that gave the ATS API token (`outcomes.needs`); the others are never read.
  readOutcome: readRecruiteeOutcome,
};
