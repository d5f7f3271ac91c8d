/**
 * The job side of the Ashby connector: the shapes of a job board posting and of a posting's application
 * form definition, and how they become our JobInput (location, employment, compensation, screening questions
 * and form fields). Apart from ashby.ts, which makes the requests, builds the application and maps the errors,
 * so that the mapping reads without the HTTP around it. ashby.ts reads the same form again for a submission
 * (formFields, options), so those are exported; nothing here imports ashby.ts.
 */
import type { JobInput } from '#jobs/job-schema.js';
import { categoryFrom, httpUrl, locationParts, remoteFrom, text } from '#delivery/connectors/mapping.js';

export type FormField = {
  isRequired?: unknown;
  field?: {
    id?: unknown;
    path?: unknown;
    title?: unknown;
    type?: unknown;
    selectableValues?: { label?: unknown; value?: unknown }[];
  };
};
export type FormDefinition = { sections?: { title?: unknown; fields?: FormField[] }[]; fields?: FormField[] };
type AshbyCompensationComponent = {
  compensationType?: unknown;
  interval?: unknown;
  currencyCode?: unknown;
  minValue?: unknown;
  maxValue?: unknown;
};
export type AshbyJob = Record<string, unknown> & {
  id?: unknown;
  jobUrl?: unknown;
  applyUrl?: unknown;
  address?: { postalAddress?: Record<string, unknown> } | null;
  secondaryLocations?: { location?: unknown }[];
  compensation?: {
    compensationTierSummary?: unknown;
    scrapeableCompensationSalarySummary?: unknown;
    summaryComponents?: AshbyCompensationComponent[];
    compensationTiers?: { components?: AshbyCompensationComponent[] }[];
  } | null;
};

const EMPLOYMENT: Record<string, [JobInput['employment_type'], JobInput['work_schedule']]> = {
  FullTime: ['permanent', 'full_time'],
  PartTime: ['permanent', 'part_time'],
  Intern: ['intern', null],
  Contract: ['contract', null],
  Temporary: ['temporary', null],
};
const WORKPLACE: Record<string, JobInput['remote']> = { Remote: 'remote', Hybrid: 'hybrid', OnSite: 'on-site' };
const INTERVALS: Record<string, string> = {
  '1 YEAR': 'annual',
  '1 MONTH': 'monthly',
  '1 WEEK': 'weekly',
  '1 DAY': 'daily',
  '1 HOUR': 'hourly',
  'ONE TIME': 'one_time',
};
/** Ashby's form field types → our `answer_type`. */
const ANSWER_TYPES: Record<string, string> = {
  String: 'text',
  LongText: 'textarea',
  RichText: 'textarea',
  Email: 'email',
  Phone: 'phone',
  Boolean: 'boolean',
  Date: 'date',
  Number: 'number',
  Score: 'score',
  ValueSelect: 'single_select',
  MultiValueSelect: 'multi_select',
  Location: 'location',
  File: 'file',
};

const pick = <T>(map: Record<string, T>, value: unknown): T | undefined =>
  typeof value === 'string' && Object.hasOwn(map, value) ? map[value] : undefined;
const num = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : null);

const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;

/** The posting's id: `id`, else the UUID at the end of its `jobUrl` or `applyUrl` (the documented example has no id). */
export function ashbyPostingId(job: AshbyJob): string | null {
  if (typeof job.id === 'string' && job.id.trim()) return job.id.trim();
  for (const url of [job.jobUrl, job.applyUrl]) {
    const link = httpUrl(url);
    if (!link) continue;
    const last = new URL(link).pathname
      .split('/')
      .filter((p) => p && p !== 'application')
      .pop();
    if (last && UUID.test(last)) return last;
  }
  return null;
}

export function formFields(form: FormDefinition | undefined): FormField[] {
  if (!form || typeof form !== 'object') return [];
  const sections = Array.isArray(form.sections) ? form.sections : [];
  const fields = [
    ...sections.flatMap((s) => (Array.isArray(s?.fields) ? s.fields : [])),
    ...(Array.isArray(form.fields) ? form.fields : []),
  ];
  return fields.filter((f) => f && typeof f.field?.path === 'string' && f.field.path !== '');
}

export const options = (entry: FormField) =>
  (Array.isArray(entry.field?.selectableValues) ? entry.field.selectableValues : []).map((v) => ({
    label: String(v?.label ?? ''),
    value: String(v?.value ?? ''),
  }));

/** The application form's custom questions (not `_systemfield_*`, not files) as screening questions. */
function screeningQuestions(form: FormDefinition | undefined): NonNullable<JobInput['screening_questions']> {
  return formFields(form)
    .filter((f) => !String(f.field!.path).startsWith('_systemfield_') && f.field!.type !== 'File')
    .map((f) => ({
      id: String(f.field!.path),
      question: text(f.field!.title) ?? String(f.field!.path),
      answer_type: pick(ANSWER_TYPES, f.field!.type) ?? 'text',
      required: f.isRequired === true,
      options: options(f),
    }));
}

function applicationFormFields(form: FormDefinition | undefined): NonNullable<JobInput['application_form_fields']> {
  return formFields(form).map((f, i) => ({
    id: text(f.field!.id) ?? String(f.field!.path),
    name: String(f.field!.path),
    label: text(f.field!.title) ?? String(f.field!.path),
    type: String(f.field!.type ?? ''),
    subtype: null,
    required: f.isRequired === true,
    order: i + 1,
    options: options(f),
  }));
}

function salaryComponent(job: AshbyJob): AshbyCompensationComponent | undefined {
  const compensation = job.compensation;
  if (!compensation || typeof compensation !== 'object') return undefined;
  const components = [
    ...(Array.isArray(compensation.summaryComponents) ? compensation.summaryComponents : []),
    ...(Array.isArray(compensation.compensationTiers) ? compensation.compensationTiers : []).flatMap((t) =>
      Array.isArray(t?.components) ? t.components : [],
    ),
  ];
  return components.find((c) => c && c.compensationType === 'Salary');
}

/** One posting of the board (and its application form, when read) → our Job fields (docs/connectors/ashby.md). */
export function mapAshbyJob(job: AshbyJob, form?: FormDefinition): JobInput {
  const locationName = text(job.location);
  const postal = job.address?.postalAddress ?? {};
  const parts = locationParts(locationName);
  const employment = pick(EMPLOYMENT, job.employmentType);
  const salary = salaryComponent(job);
  const interval = text(salary?.interval);
  const description = typeof job.descriptionHtml === 'string' && job.descriptionHtml ? job.descriptionHtml : null;
  const secondary = (Array.isArray(job.secondaryLocations) ? job.secondaryLocations : []).map((l) => text(l?.location)).filter(Boolean);
  const workplace = pick(WORKPLACE, job.workplaceType);
  return {
    external_id: ashbyPostingId(job)!,
    title: text(job.title),
    description,
    description_sections: description ? [{ id: 'description', type: 'html', order: 1, title: 'Description', content: description }] : [],
    posting_url: httpUrl(job.jobUrl),
    application_url: httpUrl(job.applyUrl),
    location_name: locationName,
    street: text(postal.streetAddress),
    city: text(postal.addressLocality) ?? parts.city,
    postcode: text(postal.postalCode),
    country: text(postal.addressCountry) ?? parts.country,
    remote: workplace ?? (job.isRemote === true ? 'remote' : remoteFrom(locationName)),
    employment_type: employment?.[0] ?? null,
    work_schedule: employment?.[1] ?? null,
    category: categoryFrom(job.department, job.team),
    salary: text(job.compensation?.scrapeableCompensationSalarySummary) ?? text(job.compensation?.compensationTierSummary),
    salary_from: num(salary?.minValue),
    salary_to: num(salary?.maxValue),
    salary_currency: text(salary?.currencyCode),
    salary_frequency: interval ? (pick(INTERVALS, interval) ?? interval) : null,
    screening_questions: screeningQuestions(form),
    application_form_fields: applicationFormFields(form),
    custom_fields: {
      ...(text(job.department) ? { department: text(job.department) } : {}),
      ...(text(job.team) ? { team: text(job.team) } : {}),
      ...(secondary.length ? { secondary_locations: secondary } : {}),
      ...(text(job.publishedAt) ? { published_at: text(job.publishedAt) } : {}),
    },
    raw_values: job,
    import_source: 'api',
  };
}
