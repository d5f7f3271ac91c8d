/**
 * The job side of the Teamtailor connector: the JSON:API resources a job list and a job's picked questions
 * arrive as, and how one job (with its included department and locations) and its picked questions become
 * our JobInput, screening questions and form fields. Apart from teamtailor.ts, which makes the requests and
 * maps the errors, so that the mapping reads without the HTTP around it; it imports nothing of that module.
 */
import type { JobInput } from '#jobs/job-schema.js';
import { categoryFrom, commitmentSchedule, commitmentType, httpUrl, text } from '#delivery/connectors/mapping.js';

export type Resource = {
  id?: unknown;
  type?: unknown;
  attributes?: Record<string, unknown>;
  relationships?: Record<string, unknown>;
  links?: unknown;
};
type Linkage = { type: string; id: string };

const attr = (resource: Resource | undefined, name: string): unknown =>
  resource?.attributes && Object.hasOwn(resource.attributes, name) ? resource.attributes[name] : undefined;

/** The linkage(s) of a relationship (`{data: {type, id}}` or `{data: [...]}`). */
export function linkages(resource: Resource | undefined, name: string): Linkage[] {
  const rel = resource?.relationships && Object.hasOwn(resource.relationships, name) ? resource.relationships[name] : undefined;
  const data = (rel as { data?: unknown } | undefined)?.data;
  const list = Array.isArray(data) ? data : data ? [data] : [];
  return list
    .filter((d): d is { type: unknown; id: unknown } => !!d && typeof d === 'object')
    .map((d) => ({ type: String(d.type), id: String(d.id) }));
}

/** `included` resources by `type:id` (a Map: the keys come from the ATS). */
export function includedIndex(included: unknown): Map<string, Resource> {
  const index = new Map<string, Resource>();
  if (!Array.isArray(included)) return index;
  for (const item of included as Resource[]) {
    if (item && typeof item === 'object' && (typeof item.id === 'string' || typeof item.id === 'number'))
      index.set(`${String(item.type)}:${String(item.id)}`, item);
  }
  return index;
}

export type PickedQuestion = { picked: Resource; question: Resource | undefined };

/**
 * Teamtailor's question types → our screening answer types. Documented (docs.teamtailor.com "Questions"):
 * Boolean, Choice (below), Text (`single-line` → text, else textarea), Range (an integer), Video (no answer by
 * API: "It is not possible to create file or video answer via API"). Any other type reads as text (P277).
 */
const QUESTION_TYPES: Record<string, string> = {
  Boolean: 'boolean',
  Text: 'textarea',
  Range: 'number',
  Video: 'file',
};

function questionOptions(question: Resource | undefined): { label: string; value: string }[] {
  const alternatives = attr(question, 'alternatives') ?? attr(question, 'choices');
  if (!Array.isArray(alternatives)) return [];
  return alternatives.map((a: unknown) =>
    a && typeof a === 'object'
      ? {
          label: String((a as { title?: unknown }).title ?? ''),
          value: String((a as { id?: unknown }).id ?? (a as { title?: unknown }).title ?? ''),
        }
      : { label: String(a), value: String(a) },
  );
}

function screeningQuestions(picked: PickedQuestion[]): NonNullable<JobInput['screening_questions']> {
  return picked
    .filter((p) => p.question && (typeof p.question.id === 'string' || typeof p.question.id === 'number'))
    .map(({ picked: pick, question }) => {
      const type = String(attr(question, 'question-type') ?? '');
      const answerType =
        type === 'Choice'
          ? attr(question, 'multiple') === true
            ? 'multi_select'
            : 'single_select'
          : type === 'Text' && attr(question, 'single-line') === true
            ? 'text'
            : Object.hasOwn(QUESTION_TYPES, type)
              ? QUESTION_TYPES[type]
              : 'text';
      return {
        id: String(question!.id),
        question: text(attr(question, 'title')) ?? String(question!.id),
        answer_type: answerType,
        required: attr(pick, 'mandatory') === true,
        options: questionOptions(question),
      };
    });
}

const REMOTE: Record<string, JobInput['remote']> = { fully: 'remote', hybrid: 'hybrid', none: 'on-site' };
const SALARY_UNITS: Record<string, string> = { yearly: 'annual', monthly: 'monthly', weekly: 'weekly', daily: 'daily', hourly: 'hourly' };
const num = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value)
      ? Number(value)
      : null;

/** One job (with its included department and locations, and its picked questions) → our Job fields. */
export function mapTeamtailorJob(job: Resource, included: Map<string, Resource>, picked: PickedQuestion[]): JobInput {
  const body = typeof attr(job, 'body') === 'string' ? String(attr(job, 'body')) : null;
  const pitch = text(attr(job, 'pitch'));
  const links = (job.links && typeof job.links === 'object' ? job.links : {}) as Record<string, unknown>;
  const location = linkages(job, 'locations')
    .map((l) => included.get(`locations:${l.id}`))
    .find(Boolean);
  const department = linkages(job, 'department')
    .map((d) => included.get(`departments:${d.id}`))
    .find(Boolean);
  const city = text(attr(location, 'city'));
  const country = text(attr(location, 'country'));
  const employment = text(attr(job, 'employment-type'));
  const remoteStatus = text(attr(job, 'remote-status'));
  const unit = text(attr(job, 'salary-time-unit'));
  const questions = screeningQuestions(picked);
  return {
    external_id: String(job.id),
    title: text(attr(job, 'title')),
    description: body,
    description_sections: [
      ...(pitch ? [{ id: 'pitch', type: 'text', title: 'Pitch', content: pitch }] : []),
      ...(body ? [{ id: 'body', type: 'html', title: 'Description', content: body }] : []),
    ].map((s, i) => ({ ...s, order: i + 1 })),
    posting_url: httpUrl(links['careersite-job-url']),
    application_url: httpUrl(links['careersite-job-apply-url']) ?? httpUrl(links['careersite-job-url']),
    location_name: text(attr(location, 'name')) ?? ([city, country].filter(Boolean).join(', ') || null),
    street: text(attr(location, 'address')),
    postcode: text(attr(location, 'zip')),
    city,
    country,
    remote: remoteStatus && Object.hasOwn(REMOTE, remoteStatus) ? REMOTE[remoteStatus] : null,
    employment_type: employment ? commitmentType(employment) : null,
    work_schedule: employment ? commitmentSchedule(employment) : null,
    category: categoryFrom(attr(department, 'name'), attr(job, 'title')),
    salary_from: num(attr(job, 'min-salary')),
    salary_to: num(attr(job, 'max-salary')),
    salary_currency: text(attr(job, 'currency')),
    salary_frequency: unit ? (Object.hasOwn(SALARY_UNITS, unit) ? SALARY_UNITS[unit] : unit) : null,
    screening_questions: questions,
    application_form_fields: questions.map((q, i) => ({
      id: q.id,
      name: `question_${q.id}`,
      label: q.question,
      type: q.answer_type ?? 'text',
      subtype: null,
      required: q.required ?? false,
      order: i + 1,
      options: q.options ?? [],
    })),
    custom_fields: {
      ...(text(attr(department, 'name')) ? { department: text(attr(department, 'name')) } : {}),
      ...(text(attr(job, 'human-status')) ? { human_status: text(attr(job, 'human-status')) } : {}),
    },
    raw_values: job as Record<string, unknown>,
    import_source: 'api',
  };
}
