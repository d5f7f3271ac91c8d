/**
 * The job side of the Workable connector: the shapes of a job and of its application form, how they become
 * our JobInput (sections, location, salary, screening questions and form fields), and how that form is read
 * back for a submission: the answer shape of each question type (the inverse of the import's mapping), which
 * file question takes an attachment, and the form's file limits. Apart from workable.ts, which makes the
 * requests under Workable's rate limits, builds the application and maps the errors, so that the mapping
 * reads without the HTTP around it; nothing here imports workable.ts.
 */
import type { JobInput } from '#jobs/job-schema.js';
import { categoryFrom, commitmentSchedule, commitmentType, httpUrl, listAnswer, text, yesNo } from '#delivery/connectors/mapping.js';

type Location = {
  location_str?: unknown;
  country?: unknown;
  country_code?: unknown;
  region?: unknown;
  region_code?: unknown;
  city?: unknown;
  zip_code?: unknown;
  telecommuting?: unknown;
  workplace_type?: unknown;
};
export type WorkableJob = Record<string, unknown> & {
  shortcode?: unknown;
  location?: Location | null;
  locations?: Location[] | null;
  department_hierarchy?: { name?: unknown }[] | null;
  salary?: { salary_from?: unknown; salary_to?: unknown; salary_currency?: unknown; salary_frequency?: unknown } | null;
};
export type FormField = {
  key?: unknown;
  label?: unknown;
  type?: unknown;
  required?: unknown;
  fields?: unknown;
  supported_file_types?: unknown;
  max_file_size?: unknown;
};
export type Question = {
  id?: unknown;
  body?: unknown;
  type?: unknown;
  required?: unknown;
  single_answer?: unknown;
  choices?: { id?: unknown; body?: unknown }[] | null;
  supported_file_types?: unknown;
  max_file_size?: unknown;
};
export type WorkableForm = { form_fields: FormField[]; questions: Question[] };

// ---------------------------------------------------------------------------------------------------------
// The job and its form → our Job fields.

const WORKPLACE: Record<string, JobInput['remote']> = { remote: 'remote', hybrid: 'hybrid', on_site: 'on-site' };
const QUESTION_TYPES: Record<string, string> = {
  free_text: 'textarea',
  short_text: 'text',
  multiple_choice: 'multi_select',
  dropdown: 'single_select',
  boolean: 'boolean',
  numeric: 'number',
  date: 'date',
  file: 'file',
};

const num = (value: unknown) =>
  typeof value === 'number' && Number.isFinite(value)
    ? value
    : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim())
      ? Number(value)
      : null;

function choices(question: Question) {
  return (Array.isArray(question.choices) ? question.choices : []).map((c) => ({
    label: String(c?.body ?? ''),
    value: String(c?.id ?? ''),
  }));
}

function screeningQuestions(form: WorkableForm | undefined): NonNullable<JobInput['screening_questions']> {
  return (form?.questions ?? [])
    .filter((q) => text(q?.id))
    .map((q) => {
      const type = String(q.type ?? '');
      const single = type === 'multiple_choice' && q.single_answer === true;
      return {
        id: text(q.id)!,
        question: text(q.body) ?? text(q.id)!,
        answer_type: single ? 'single_select' : Object.hasOwn(QUESTION_TYPES, type) ? QUESTION_TYPES[type] : 'text',
        required: q.required === true,
        options: choices(q),
      };
    });
}

function formFields(form: WorkableForm | undefined): NonNullable<JobInput['application_form_fields']> {
  return (form?.form_fields ?? [])
    .filter((f) => text(f?.key))
    .map((f, i) => ({
      id: text(f.key)!,
      name: text(f.key)!,
      label: text(f.label) ?? text(f.key)!,
      type: String(f.type ?? ''),
      subtype: null,
      required: f.required === true,
      order: i + 1,
      options: Array.isArray(f.fields) ? (f.fields as unknown[]) : [],
    }));
}

const html = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : null);

/** One job (and its application form) → our Job fields (docs/connectors/workable.md has the table). */
export function mapWorkableJob(job: WorkableJob, form?: WorkableForm): JobInput {
  const location = job.location ?? (Array.isArray(job.locations) ? job.locations[0] : undefined) ?? {};
  const sections = (
    [
      ['description', 'Description', job.description],
      ['requirements', 'Requirements', job.requirements],
      ['benefits', 'Benefits', job.benefits],
    ] as const
  )
    .filter(([, , content]) => html(content))
    .map(([id, title, content], i) => ({ id, type: 'html', order: i + 1, title, content: String(content) }));
  const description =
    html(job.full_description) ??
    (sections.length ? sections.map((s) => (s.id === 'description' ? s.content : `<h3>${s.title}</h3>\n${s.content}`)).join('\n') : null);
  const workplace = text(location.workplace_type);
  const employment = text(job.employment_type);
  const salary = job.salary && typeof job.salary === 'object' ? job.salary : null;
  const departments = (Array.isArray(job.department_hierarchy) ? job.department_hierarchy : []).map((d) => text(d?.name)).filter(Boolean);
  const currency = text(salary?.salary_currency);
  return {
    external_id: String(text(job.shortcode)),
    title: text(job.title),
    description,
    description_sections: sections,
    posting_url: httpUrl(job.url) ?? httpUrl(job.shortlink),
    application_url: httpUrl(job.application_url),
    location_name: text(location.location_str),
    city: text(location.city),
    country: text(location.country),
    postcode: text(location.zip_code),
    remote: workplace && Object.hasOwn(WORKPLACE, workplace) ? WORKPLACE[workplace] : location.telecommuting === true ? 'remote' : null,
    employment_type: employment ? commitmentType(employment) : null,
    work_schedule: employment ? commitmentSchedule(employment) : null,
    category: categoryFrom(job.department, ...departments, job.function),
    salary_from: num(salary?.salary_from),
    salary_to: num(salary?.salary_to),
    salary_currency: currency ? currency.toUpperCase() : null,
    salary_frequency: text(salary?.salary_frequency),
    screening_questions: screeningQuestions(form),
    application_form_fields: formFields(form),
    custom_fields: {
      ...(text(job.id) ? { workable_id: text(job.id) } : {}),
      ...(text(job.code) ? { code: text(job.code) } : {}),
      ...(text(job.department) ? { department: text(job.department) } : {}),
      ...(departments.length ? { department_hierarchy: departments } : {}),
      ...(text(location.region) ? { region: text(location.region) } : {}),
    },
    raw_values: job,
    import_source: 'api',
  };
}

// ---------------------------------------------------------------------------------------------------------
// The form read back for a submission: the same questions, from our side.

/** Which file question of the form takes an attachment of our type (the CV goes to `candidate.resume`). */
export const FILE_QUESTION: Record<string, RegExp> = {
  cover_letter: /cover|motivation|anschreiben/i,
  certificate: /certificat|diploma|zeugnis|transcript/i,
  work_sample: /sample|portfolio/i,
  photo: /photo|picture|image/i,
  other: /other|additional|document|attachment/i,
};

/** A form's file limits (`max_file_size` in bytes, `supported_file_types` as extensions or MIME types). */
export function formLimits(item: { max_file_size?: unknown; supported_file_types?: unknown } | undefined) {
  const max = num(item?.max_file_size);
  const types = Array.isArray(item?.supported_file_types)
    ? (item.supported_file_types as unknown[]).map((t) => String(t).toLowerCase().replace(/^\./, '')).filter(Boolean)
    : [];
  return { max, types };
}

/** One screening answer in Workable's answer shape (by our answer_type, which the import derived from Workable's). */
export function answerFor(answer: Record<string, string>): Record<string, unknown> | undefined {
  const key = text(answer.id);
  if (!key) return undefined;
  const value = String(answer.answer ?? '');
  switch (answer.answer_type) {
    case 'boolean':
      return { question_key: key, checked: yesNo(value) === true };
    case 'single_select':
    case 'multi_select':
      return {
        question_key: key,
        choices: listAnswer(value),
      };
    case 'number':
      return num(value) !== null ? { question_key: key, number: num(value) } : { question_key: key, body: value };
    case 'date':
      return { question_key: key, date: value };
    case 'file':
      // A file answer comes from an attachment, never from a text answer.
      return undefined;
    default:
      return { question_key: key, body: value };
  }
}
