/**
 * Personio (docs/connectors/personio.md). Jobs come from the company's public XML feed (one document, no
 * paging); applications go to the Recruiting API: each attachment is uploaded first as a document, then
 * the application is created with the returned uuids. Auth: `Authorization: Bearer <token>` plus
 * `X-Company-ID`.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { CompanyRecord } from '#companies/company-schema.js';
import type { JobInput } from '#jobs/job-schema.js';
import { ConnectorError, type AtsConnector, type AtsCredentials, type Submission } from '#delivery/connectors/connector.js';
import { atsBaseUrl, atsFetch, atsUrl, attachmentBytes, errorForStatus, jsonBody } from '#delivery/connectors/http.js';
import { candidateName, categoryFrom, httpUrl, text } from '#delivery/connectors/mapping.js';
import { API_URL, ATTACHMENTS, FEED_URL, PACING, personioDescriptor } from '#delivery/connectors/personio-descriptor.js';
export { PERSONIO_MAX_FILE_BYTES } from '#delivery/connectors/personio-descriptor.js';

const ATS = 'Personio';

/** Our attachment `type` → Personio's document `category`. */
export const PERSONIO_CATEGORIES: Record<string, string> = {
  cv: 'cv',
  cover_letter: 'cover-letter',
  certificate: 'certificate',
  work_sample: 'work-sample',
  photo: 'other',
  other: 'other',
};

const EMPLOYMENT_TYPES: Record<string, JobInput['employment_type']> = {
  permanent: 'permanent',
  intern: 'intern',
  trainee: 'apprenticeship',
  freelance: 'freelance',
};
const SCHEDULES: Record<string, JobInput['work_schedule']> = {
  'full-time': 'full_time',
  'part-time': 'part_time',
  'full-or-part-time': 'flexible',
};
const SENIORITY: Record<string, JobInput['senority']> = {
  student: 'unexperienced',
  'entry-level': 'junior',
  experienced: 'mid_level',
  executive: 'executive',
};

const pick = <T>(map: Record<string, T>, value: unknown): T | null =>
  typeof value === 'string' && Object.hasOwn(map, value) ? map[value] : null;

export function personioFeedUrl(subdomain: string): string {
  return atsBaseUrl(FEED_URL, { subdomain });
}

const parser = new XMLParser({
  ignoreAttributes: true,
  parseTagValue: false,
  trimValues: true,
  isArray: (_name, jpath) => jpath === 'workzag-jobs.position' || jpath === 'workzag-jobs.position.jobDescriptions.jobDescription',
});

type Position = Record<string, unknown> & { jobDescriptions?: { jobDescription?: { name?: unknown; value?: unknown }[] } };

/** Parses the XML feed; anything that is not a `workzag-jobs` document is a malformed feed. */
export function parsePersonioFeed(xml: string): Position[] {
  if (XMLValidator.validate(xml) !== true) throw new ConnectorError('invalid_data', `${ATS} feed is not well-formed XML.`);
  const document = parser.parse(xml) as Record<string, unknown>;
  const root = document['workzag-jobs'];
  if (root === undefined) throw new ConnectorError('invalid_data', `${ATS} feed has no workzag-jobs root element.`);
  const positions = (root && typeof root === 'object' ? (root as { position?: unknown }).position : undefined) ?? [];
  if (!Array.isArray(positions)) throw new ConnectorError('invalid_data', `${ATS} feed is malformed.`);
  for (const position of positions) {
    if (!position || typeof position !== 'object' || !text((position as Position).id))
      throw new ConnectorError('invalid_data', `${ATS} feed has a position without an id.`);
  }
  return positions as Position[];
}

/** One feed position → our Job fields (docs/connectors/personio.md has the table). */
export function mapPersonioPosition(position: Position, feedUrl: string): JobInput {
  const id = text(position.id)!;
  const sections = (position.jobDescriptions?.jobDescription ?? []).map((section, i) => ({
    id: `section-${i + 1}`,
    type: 'html',
    order: i + 1,
    title: text(section.name) ?? '',
    content: typeof section.value === 'string' ? section.value : '',
  }));
  const office = text(position.office);
  const custom: Record<string, string> = {};
  for (const [field, name] of [
    ['subcompany', 'subcompany'],
    ['department', 'department'],
    ['recruitingCategory', 'recruiting_category'],
    ['occupation', 'occupation'],
    ['occupationCategory', 'occupation_category'],
    ['yearsOfExperience', 'years_of_experience'],
  ] as const) {
    const value = text(position[field]);
    if (value) custom[name] = value;
  }
  return {
    external_id: id,
    title: text(position.name),
    description: sections.length ? sections.map((s) => `<h3>${s.title}</h3>\n${s.content}`).join('\n') : null,
    description_sections: sections,
    posting_url: httpUrl(`${feedUrl.replace(/\/xml\/?$/, '')}/job/${encodeURIComponent(id)}`),
    location_name: office,
    city: office,
    employment_type: pick(EMPLOYMENT_TYPES, position.employmentType) ?? (text(position.employmentType) ? 'other' : null),
    work_schedule: pick(SCHEDULES, position.schedule),
    senority: pick(SENIORITY, position.seniority),
    category: categoryFrom(position.occupationCategory, position.recruitingCategory, position.department, position.occupation),
    custom_fields: custom,
    raw_values: position,
    import_source: 'api',
  };
}

function headers(credentials: AtsCredentials): Record<string, string> {
  return { Authorization: `Bearer ${credentials.token}`, 'X-Company-ID': credentials.personio_company_id, Accept: 'application/json' };
}

/** The reasons and titles of Personio's two documented error shapes. */
function errorReasons(body: unknown): string[] {
  const reasons: string[] = [];
  const errors = (body as { errors?: unknown })?.errors;
  if (!Array.isArray(errors)) return reasons;
  for (const error of errors as Record<string, unknown>[]) {
    if (Array.isArray(error?.errors))
      for (const inner of error.errors as Record<string, unknown>[]) reasons.push(String(inner?.reason ?? ''));
    for (const name of ['id', 'title', 'detail']) if (typeof error?.[name] === 'string') reasons.push(error[name] as string);
  }
  return reasons.filter(Boolean);
}

async function failure(response: Response): Promise<ConnectorError> {
  const raw = await response.text();
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = undefined;
  }
  const reasons = errorReasons(body);
  // The deprecated endpoint's 422 "Job position not published" came in another shape: look at the text too.
  if (reasons.length === 0 && /not published/i.test(raw)) reasons.push('Job position not published');
  const detail = reasons.join('; ').slice(0, 300);
  if (reasons.includes('errors.applicant-already-exists'))
    return new ConnectorError('duplicate', `${ATS}: the applicant already exists (errors.applicant-already-exists).`);
  if (reasons.some((r) => /posting-not-found|not published/i.test(r)))
    return new ConnectorError('job_not_published', `${ATS}: the job position is not found or not published (${detail}).`);
  if (reasons.includes('feature.public-api.disabled'))
    return new ConnectorError(
      'credentials_rejected',
      `${ATS}: the Recruiting API is disabled for this company (feature.public-api.disabled).`,
    );
  if (response.status === 413 || reasons.includes('errors.file-too-big'))
    return new ConnectorError('attachment_rejected', `${ATS} refused a file as too large.`);
  return errorForStatus(ATS, response, detail);
}

async function uploadDocument(
  base: string,
  credentials: AtsCredentials,
  attachment: Submission['attachments'][number],
): Promise<{ uuid: string; original_filename: string; category: string }> {
  const bytes = await attachmentBytes(ATS, attachment, ATTACHMENTS);
  const form = new FormData();
  form.append('file', new Blob([bytes], { type: attachment.content_type }), attachment.name);
  const response = await atsFetch(
    ATS,
    atsUrl(base, '/v1/recruiting/applications/documents'),
    { method: 'POST', headers: headers(credentials), body: form },
    PACING,
  );
  if (response.status === 422)
    throw new ConnectorError('attachment_rejected', `${ATS} could not process the ${attachment.type} file (422).`);
  if (!response.ok) throw await failure(response);
  const body = (await jsonBody(response)) as { uuid?: unknown } | undefined;
  if (typeof body?.uuid !== 'string') throw new ConnectorError('transient', `${ATS} did not return a document uuid.`);
  return {
    uuid: body.uuid,
    original_filename: attachment.name,
    category: Object.hasOwn(PERSONIO_CATEGORIES, attachment.type) ? PERSONIO_CATEGORIES[attachment.type] : 'other',
  };
}

export const personioConnector: AtsConnector = {
  ...personioDescriptor,

  async listPublishedJobs(_company: CompanyRecord, credentials: AtsCredentials) {
    const feedUrl = personioFeedUrl(credentials.subdomain);
    const response = await atsFetch(ATS, feedUrl, { headers: { Accept: 'application/xml' } }, PACING);
    if (response.status === 404)
      throw new ConnectorError('credentials_rejected', `${ATS} has no job feed for that subdomain (404).`, undefined, 'subdomain');
    if (!response.ok) throw errorForStatus(ATS, response);
    return parsePersonioFeed(await response.text()).map((position) => mapPersonioPosition(position, feedUrl));
  },

  async submitApplication(submission: Submission, credentials: AtsCredentials) {
    const base = atsBaseUrl(API_URL);
    // Documents first: the application refers to them by uuid.
    const files = [];
    for (const attachment of submission.attachments) files.push(await uploadDocument(base, credentials, attachment));
    const name = candidateName(submission.candidate);
    const phone = text(submission.candidate.phone);
    const jobId = submission.jobExternalId;
    const body = {
      first_name: name.first,
      last_name: name.last,
      email: String(submission.candidate.email ?? ''),
      job_position_id: /^\d+$/.test(jobId) ? Number(jobId) : jobId,
      ...(phone ? { attributes: [{ id: 'phone', value: phone }] } : {}),
      ...(files.length ? { files } : {}),
    };
    const response = await atsFetch(
      ATS,
      atsUrl(base, '/v1/recruiting/applications'),
      {
        method: 'POST',
        headers: { ...headers(credentials), 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      },
      PACING,
    );
    if (!response.ok) throw await failure(response);
    // 201 with no documented body: Personio gives us no id for the application.
    return { externalId: null };
  },

  async validateCredentials(credentials: AtsCredentials, company: CompanyRecord) {
    // The public feed proves the subdomain.
    await personioConnector.listPublishedJobs(company, credentials);
    // An application without fields: Personio authenticates first, so 401/403 rejects the token or company id,
    // and a validation error (400/422) proves both without creating anything.
    const response = await atsFetch(
      ATS,
      atsUrl(atsBaseUrl(API_URL), '/v1/recruiting/applications'),
      {
        method: 'POST',
        headers: { ...headers(credentials), 'Content-Type': 'application/json' },
        body: '{}',
      },
      PACING,
    );
    if (response.status === 401 || response.status === 403) {
      const failed = await failure(response);
      throw new ConnectorError('credentials_rejected', failed.message, undefined, 'token');
    }
    if (response.status === 429 || response.status >= 500) throw errorForStatus(ATS, response);
    // Anything but the expected validation error (or a 2xx) is not Personio's Recruiting API answering.
    if (!response.ok && response.status !== 400 && response.status !== 422)
      throw new ConnectorError('invalid_data', `${ATS} Recruiting API answered ${response.status} to the credentials check.`);
  },
};
