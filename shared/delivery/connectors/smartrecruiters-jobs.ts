/**
 * The job side of the SmartRecruiters connector: the shapes of a posting and of its application
 * configuration, and how they become our JobInput (job ad sections, location, seniority, screening questions
 * and form fields). Apart from smartrecruiters.ts, which makes the requests, builds the application and maps
 * the errors, so that the mapping reads without the HTTP around it. The answers of a submission are matched
 * against the same answerable fields (answerableFields, answerType), so the ids the import hands out are the
 * ids the application takes; nothing here imports smartrecruiters.ts.
 */
import type { JobInput } from '#jobs/job-schema.js';
import { categoryFrom, commitmentSchedule, commitmentType, httpUrl, text } from '#delivery/connectors/mapping.js';

type Labeled = { id?: unknown; label?: unknown };
type Section = { title?: unknown; text?: unknown };
export type SmartRecruitersPosting = Record<string, unknown> & {
  id?: unknown;
  uuid?: unknown;
  name?: unknown;
  location?: {
    city?: unknown;
    region?: unknown;
    country?: unknown;
    address?: unknown;
    postalCode?: unknown;
    remote?: unknown;
    hybrid?: unknown;
    fullLocation?: unknown;
    latitude?: unknown;
    longitude?: unknown;
  };
  industry?: Labeled;
  department?: Labeled;
  function?: Labeled;
  typeOfEmployment?: Labeled;
  experienceLevel?: Labeled;
  language?: { code?: unknown };
  customField?: { fieldId?: unknown; fieldLabel?: unknown; valueId?: unknown; valueLabel?: unknown }[];
  jobAd?: { sections?: Record<string, Section | undefined> };
  compensation?: { min?: unknown; max?: unknown; currency?: unknown };
};
export type ConfigField = {
  id?: unknown;
  label?: unknown;
  type?: unknown;
  required?: unknown;
  complianceType?: unknown;
  values?: Labeled[];
};
type ConfigQuestion = { id?: unknown; label?: unknown; repeatable?: unknown; fields?: ConfigField[] };
export type SmartRecruitersConfiguration = Record<string, unknown> & {
  questions?: ConfigQuestion[];
  privacyPolicies?: { url?: unknown; orgName?: unknown }[];
};

/** The job ad's sections, in the order a posting shows them. */
const SECTIONS: [string, string][] = [
  ['companyDescription', 'Company description'],
  ['jobDescription', 'Job description'],
  ['qualifications', 'Qualifications'],
  ['additionalInformation', 'Additional information'],
];

/** `experienceLevel.id` → our seniority. */
const SENIORITY: Record<string, JobInput['senority']> = {
  internship: 'unexperienced',
  entry_level: 'junior',
  associate: 'mid_level',
  mid_senior_level: 'senior',
  director: 'director',
  executive: 'executive',
};

const num = (value: unknown): number | null => {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
};

/** Our answer type for a configuration field type (SmartRecruiters' type names, matched loosely). */
export function answerType(field: ConfigField): string {
  const type = String(field.type ?? '').toUpperCase();
  const options = Array.isArray(field.values) && field.values.length > 0;
  if (/TEXTAREA/.test(type)) return 'textarea';
  if (/MULTI/.test(type) || (/CHECKBOX/.test(type) && options)) return 'multi_select';
  if (/SELECT|RADIO|DROPDOWN/.test(type)) return 'single_select';
  if (/CHECKBOX|BOOLEAN/.test(type)) return 'boolean';
  if (/DATE/.test(type)) return 'date';
  if (/CURRENCY/.test(type)) return 'currency';
  if (/NUMBER|NUMERIC/.test(type)) return 'number';
  if (/INFORMATION|LABEL/.test(type)) return 'information';
  return 'text';
}

const options = (field: ConfigField) =>
  (field.values ?? []).filter((v) => v && text(v.id)).map((v) => ({ label: text(v.label) ?? String(v.id), value: String(v.id) }));

const isDiversity = (question: ConfigQuestion) => (question.fields ?? []).some((f) => /DIVERSITY/i.test(String(f?.complianceType ?? '')));

/** Questions as SmartRecruiters wants them shown: diversity (compliance) questions last. */
function orderedQuestions(config: SmartRecruitersConfiguration | undefined): ConfigQuestion[] {
  const questions = (config?.questions ?? []).filter((q) => q && text(q.id) && Array.isArray(q.fields) && q.fields.length > 0);
  return [...questions.filter((q) => !isDiversity(q)), ...questions.filter(isDiversity)];
}

/** One entry per answerable field: `{question id}` for a one-field question, `{question id}:{field id}` otherwise. */
export function answerableFields(config: SmartRecruitersConfiguration | undefined) {
  const out: { id: string; question: ConfigQuestion; field: ConfigField }[] = [];
  for (const question of orderedQuestions(config)) {
    const fields = (question.fields ?? []).filter((f) => f && text(f.id) && answerType(f) !== 'information');
    for (const field of fields)
      out.push({ id: fields.length === 1 ? String(question.id) : `${String(question.id)}:${String(field.id)}`, question, field });
  }
  return out;
}

/** The configuration's questions → our screening questions (docs/connectors/smartrecruiters.md). */
export function screeningQuestions(config: SmartRecruitersConfiguration | undefined): NonNullable<JobInput['screening_questions']> {
  return answerableFields(config).map(({ id, question, field }) => {
    const label = text(question.label);
    const fieldLabel = text(field.label);
    const multi = id.includes(':');
    return {
      id,
      question: (multi ? [label, fieldLabel].filter(Boolean).join(': ') : (label ?? fieldLabel)) || id,
      answer_type: answerType(field),
      required: field.required === true,
      options: options(field),
    };
  });
}

/** Every field of every question, in display order (information texts included). */
function formFields(config: SmartRecruitersConfiguration | undefined): NonNullable<JobInput['application_form_fields']> {
  const out: NonNullable<JobInput['application_form_fields']> = [];
  for (const question of orderedQuestions(config)) {
    for (const field of question.fields ?? []) {
      if (!field || !text(field.id)) continue;
      const id = `${String(question.id)}:${String(field.id)}`;
      out.push({
        id,
        name: id,
        label: text(field.label) ?? text(question.label) ?? id,
        type: String(field.type ?? ''),
        subtype: text(field.complianceType),
        required: field.required === true,
        order: out.length + 1,
        options: options(field),
      });
    }
  }
  return out;
}

/** One posting (list entry merged with its full object) and its configuration → our Job fields. */
export function mapSmartRecruitersPosting(posting: SmartRecruitersPosting, config?: SmartRecruitersConfiguration): JobInput {
  const sections = SECTIONS.flatMap(([key, fallback]) => {
    const section = posting.jobAd?.sections?.[key];
    const content = typeof section?.text === 'string' && section.text.trim() !== '' ? section.text : null;
    return content ? [{ id: key, type: 'html', title: text(section?.title) ?? fallback, content }] : [];
  }).map((s, i) => ({ ...s, order: i + 1 }));
  const location = posting.location ?? {};
  const city = text(location.city);
  const region = text(location.region);
  const countryCode = text(location.country);
  const employment = text(posting.typeOfEmployment?.label);
  const level = text(posting.experienceLevel?.id);
  const pay = posting.compensation;
  const customFields = (posting.customField ?? [])
    .filter((f) => f && text(f.fieldId))
    .map((f) => ({ field_id: String(f.fieldId), label: text(f.fieldLabel), value_id: text(f.valueId), value: text(f.valueLabel) }));
  // SmartRecruiters requires an integration to show these links to the candidate.
  const privacyPolicies = (Array.isArray(config?.privacyPolicies) ? config.privacyPolicies : [])
    .filter((p) => p && httpUrl(p.url))
    .map((p) => ({ url: httpUrl(p.url)!, org_name: text(p.orgName) }));
  return {
    external_id: String(posting.uuid),
    title: text(posting.name),
    description: sections.length ? sections.map((s) => `<h3>${s.title}</h3>\n${s.content}`).join('\n') : null,
    description_sections: sections,
    posting_url: httpUrl(posting.postingUrl),
    application_url: httpUrl(posting.applyUrl),
    language: text(posting.language?.code),
    location_name: text(location.fullLocation) ?? ([city, region, countryCode?.toUpperCase()].filter(Boolean).join(', ') || null),
    street: text(location.address),
    city,
    country: countryCode ? countryCode.toUpperCase() : null,
    postcode: text(location.postalCode),
    latitude: num(location.latitude),
    longitude: num(location.longitude),
    remote: location.remote === true ? 'remote' : location.hybrid === true ? 'hybrid' : location.remote === false ? 'on-site' : null,
    employment_type: employment ? commitmentType(employment) : null,
    work_schedule: employment ? commitmentSchedule(employment) : null,
    senority: level && Object.hasOwn(SENIORITY, level) ? SENIORITY[level] : null,
    category: categoryFrom(posting.function?.label, posting.department?.label, posting.industry?.label),
    salary_from: num(pay?.min),
    salary_to: num(pay?.max),
    salary_currency: text(pay?.currency),
    screening_questions: screeningQuestions(config),
    application_form_fields: formFields(config),
    custom_fields: {
      ...(text(posting.id) ? { posting_id: text(posting.id) } : {}),
      ...(text(posting.refNumber) ? { ref_number: text(posting.refNumber) } : {}),
      ...(text(posting.department?.label) ? { department: text(posting.department?.label) } : {}),
      ...(text(posting.function?.label) ? { function: text(posting.function?.label) } : {}),
      ...(text(posting.industry?.label) ? { industry: text(posting.industry?.label) } : {}),
      ...(text(posting.experienceLevel?.label) ? { experience_level: text(posting.experienceLevel?.label) } : {}),
      ...(customFields.length ? { job_fields: customFields } : {}),
      ...(privacyPolicies.length ? { privacy_policies: privacyPolicies } : {}),
    },
    raw_values: posting,
    import_source: 'api',
  };
}
