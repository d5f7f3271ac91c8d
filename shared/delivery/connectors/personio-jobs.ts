/**
 * Personio's public XML job feed (docs/connectors/personio.md, "Jobs"): where it is, its parsing and the
 * mapping of a `position` to our Job fields. The feed is documented by Personio's own OpenAPI,
 * https://github.com/personio/api-docs/blob/master/personio-recruiting-api.yaml (`GET /xml`, `JobPosting`),
 * and https://developer.personio.de/docs/integration-of-open-positions.
 */
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { JobInput } from '#jobs/job-schema.js';
import { ConnectorError, type AtsCredentials } from '#delivery/connectors/connector.js';
import { atsBaseUrl } from '#delivery/connectors/http.js';
import { PERSONIO_DEFAULT_LANGUAGE, PERSONIO_FEED_LANGUAGES, PERSONIO_FEED_URL } from '#delivery/connectors/personio-descriptor.js';
import { categoryFrom, httpUrl, text } from '#delivery/connectors/mapping.js';

export { PERSONIO_DEFAULT_LANGUAGE, PERSONIO_FEED_LANGUAGES, PERSONIO_FEED_URL };

const ATS = 'Personio';
/** The feed URL without its query (the base of the postings' links). */
export function personioFeedUrl(subdomain: string): string {
  return atsBaseUrl(PERSONIO_FEED_URL, { subdomain });
}

/** The feed URL as requested: with the connection's `language` (P282). */
export function personioFeedRequestUrl(credentials: AtsCredentials): string {
  const url = new URL(personioFeedUrl(credentials.subdomain));
  const language = credentials.feed_language || PERSONIO_DEFAULT_LANGUAGE;
  url.searchParams.set(
    'language',
    (PERSONIO_FEED_LANGUAGES as readonly string[]).includes(language) ? language : PERSONIO_DEFAULT_LANGUAGE,
  );
  return url.toString();
}

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
    ['keywords', 'keywords'],
  ] as const) {
    const value = text(position[field]);
    if (value) custom[name] = value;
  }
  return {
    external_id: id,
    title: text(position.name),
    description: sections.length ? sections.map((s) => `<h3>${s.title}</h3>\n${s.content}`).join('\n') : null,
    description_sections: sections,
    posting_url: httpUrl(`${feedUrl.replace(/[?#].*$/, '').replace(/\/xml\/?$/, '')}/job/${encodeURIComponent(id)}`),
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
