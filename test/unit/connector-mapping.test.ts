/** The field mapping of each connector: an ATS record in, our Job fields out (pure functions). */
import { mapGreenhouseJob } from '#delivery/connectors/greenhouse.js';
import { mapLeverPosting } from '#delivery/connectors/lever.js';
import { candidateName, categoryFrom, decodeEntities, httpUrl } from '#delivery/connectors/mapping.js';
import { mapPersonioPosition, parsePersonioFeed } from '#delivery/connectors/personio.js';
import { parseJobFeed } from '#jobs/job-schema.js';

const FEED = `<?xml version="1.0" encoding="UTF-8"?>
<workzag-jobs>
  <position>
    <id>1234</id>
    <subcompany>Acme GmbH</subcompany>
    <office>Munich</office>
    <department>Engineering</department>
    <recruitingCategory>IT</recruitingCategory>
    <name>Senior Backend Engineer (m/w/d)</name>
    <jobDescriptions>
      <jobDescription><name>Your tasks</name><value><![CDATA[<p>Build &amp; run</p>]]></value></jobDescription>
      <jobDescription><name>Your profile</name><value><![CDATA[<ul><li>Go</li></ul>]]></value></jobDescription>
    </jobDescriptions>
    <employmentType>trainee</employmentType>
    <seniority>experienced</seniority>
    <schedule>part-time</schedule>
    <yearsOfExperience>3-5</yearsOfExperience>
    <occupationCategory>Software Development</occupationCategory>
    <createdAt>2026-01-01T00:00:00+00:00</createdAt>
  </position>
  <position><id>99</id><name>Nothing else</name></position>
</workzag-jobs>`;

test('Personio: every documented element maps, raw_values keeps the position, the result is a valid feed', async () => {
  const [first, second] = parsePersonioFeed(FEED).map((p) => mapPersonioPosition(p, 'https://acme.jobs.personio.de/xml'));
  expect(first).toMatchObject({
    external_id: '1234',
    title: 'Senior Backend Engineer (m/w/d)',
    location_name: 'Munich',
    city: 'Munich',
    employment_type: 'apprenticeship',
    work_schedule: 'part_time',
    senority: 'mid_level',
    category: 'software_development',
    posting_url: 'https://acme.jobs.personio.de/job/1234',
    description_sections: [
      { id: 'section-1', type: 'html', order: 1, title: 'Your tasks', content: '<p>Build &amp; run</p>' },
      { id: 'section-2', type: 'html', order: 2, title: 'Your profile', content: '<ul><li>Go</li></ul>' },
    ],
    custom_fields: { subcompany: 'Acme GmbH', department: 'Engineering', recruiting_category: 'IT', years_of_experience: '3-5' },
    import_source: 'api',
  });
  expect(first.description).toContain('<h3>Your tasks</h3>');
  expect(first.raw_values).toMatchObject({ id: '1234', seniority: 'experienced', yearsOfExperience: '3-5' });
  expect(second).toMatchObject({ external_id: '99', employment_type: null, senority: null, description_sections: [] });
  expect(await parseJobFeed([first, second])).toHaveLength(2);
});

test.each([
  ['not XML', '{"jobs": []}'],
  ['another root', '<?xml version="1.0"?><jobs><position><id>1</id></position></jobs>'],
  ['broken XML', '<workzag-jobs><position><id>1</id></workzag-jobs>'],
  ['a position without id', '<workzag-jobs><position><name>x</name></position></workzag-jobs>'],
])('Personio: a malformed feed (%s) is invalid_data', (_name, xml) => {
  expect(() => parsePersonioFeed(xml)).toThrow(expect.objectContaining({ kind: 'invalid_data' }));
});

test('Personio: an empty feed is a complete feed with no positions', () => {
  expect(parsePersonioFeed('<?xml version="1.0"?><workzag-jobs></workzag-jobs>')).toEqual([]);
});

test('Greenhouse: content is entity-decoded, questions become screening questions and form fields, pay ranges the salary', async () => {
  const job = mapGreenhouseJob({
    id: 4001,
    internal_job_id: 9,
    title: 'Product Designer',
    requisition_id: 'R-1',
    location: { name: 'Berlin, Germany' },
    absolute_url: 'javascript:alert(1)',
    content: '&lt;p&gt;Design &amp;amp; ship&lt;/p&gt;',
    departments: [{ name: 'Design' }],
    offices: [{ name: 'Berlin' }],
    metadata: [{ name: 'Employment Type', value: 'Full-time' }],
    questions: [
      { required: true, label: 'Resume/CV', fields: [{ name: 'resume', type: 'input_file' }] },
      {
        required: true,
        label: 'Work permit?',
        fields: [
          {
            name: 'question_55',
            type: 'multi_value_single_select',
            values: [
              { label: 'Yes', value: 1 },
              { label: 'No', value: 0 },
            ],
          },
        ],
      },
      {
        required: false,
        label: 'Tools',
        fields: [{ name: 'question_56[]', type: 'multi_value_multi_select', values: [{ label: 'Figma', value: 7 }] }],
      },
    ],
    pay_input_ranges: [{ min_cents: 5500000, max_cents: 7000000, currency_type: 'EUR', title: 'Base salary', blurb: '' }],
  });
  expect(job).toMatchObject({
    external_id: '4001',
    title: 'Product Designer',
    description: '<p>Design &amp; ship</p>',
    posting_url: null,
    application_url: null,
    location_name: 'Berlin, Germany',
    city: 'Berlin',
    country: 'Germany',
    employment_type: 'permanent',
    work_schedule: 'full_time',
    category: 'design',
    salary: 'Base salary',
    salary_from: 55000,
    salary_to: 70000,
    salary_currency: 'EUR',
    screening_questions: [
      {
        id: '55',
        question: 'Work permit?',
        answer_type: 'boolean',
        required: true,
        options: [
          { label: 'Yes', value: '1' },
          { label: 'No', value: '0' },
        ],
      },
      { id: '56', question: 'Tools', answer_type: 'multi_select', required: false, options: [{ label: 'Figma', value: '7' }] },
    ],
    custom_fields: { requisition_id: 'R-1', internal_job_id: '9', departments: ['Design'] },
  });
  expect(job.application_form_fields!.map((f) => [f.name, f.type, f.required, f.order])).toEqual([
    ['resume', 'input_file', true, 1],
    ['question_55', 'multi_value_single_select', true, 2],
    ['question_56[]', 'multi_value_multi_select', false, 3],
  ]);
  expect(await parseJobFeed([job])).toHaveLength(1);
});

test('Greenhouse (P280): the language, and the consent a job asks for as data_compliance form fields', () => {
  const gdpr = { type: 'gdpr', requires_consent: true, requires_processing_consent: false, requires_retention_consent: false };
  const single = mapGreenhouseJob({ id: 1, title: 'A', language: 'de', data_compliance: [{ ...gdpr, retention_period: 30 }] });
  expect(single).toMatchObject({ language: 'de', custom_fields: { data_compliance: [{ ...gdpr, retention_period: 30 }] } });
  expect(single.application_form_fields!.map((f) => [f.name, f.type, f.required])).toEqual([
    ['data_compliance[gdpr_consent_given]', 'consent', true],
  ]);
  // With single-purpose consent configured, the separate answers are asked and the single one is not.
  const separate = mapGreenhouseJob({
    id: 2,
    title: 'B',
    language: 'not a code',
    data_compliance: [{ ...gdpr, requires_retention_consent: true }],
  });
  expect(separate.language).toBeNull();
  expect(separate.application_form_fields!.map((f) => f.name)).toEqual(['data_compliance[gdpr_retention_consent_given]']);
  expect(mapGreenhouseJob({ id: 3, title: 'C' }).custom_fields).not.toHaveProperty('data_compliance');
});

test('Lever: workplace type, commitment, salary range and the description sections', async () => {
  const job = mapLeverPosting({
    id: 'abc-123',
    text: 'Account Executive',
    categories: { location: 'Remote', commitment: 'Contract', team: 'Sales', department: 'Revenue' },
    country: 'US',
    description: '<div>Sell</div>',
    lists: [{ text: 'Requirements', content: '<li>Grit</li>' }],
    additional: '<div>Perks</div>',
    hostedUrl: 'https://jobs.lever.co/acme/abc-123',
    applyUrl: 'https://jobs.lever.co/acme/abc-123/apply',
    workplaceType: 'remote',
    salaryRange: { currency: 'USD', interval: 'per-year-salary', min: 90000, max: 120000 },
  });
  expect(job).toMatchObject({
    external_id: 'abc-123',
    title: 'Account Executive',
    remote: 'remote',
    city: null,
    country: 'US',
    location_name: 'Remote',
    employment_type: 'contract',
    category: 'sales',
    salary_from: 90000,
    salary_to: 120000,
    salary_currency: 'USD',
    salary_frequency: 'annual',
    posting_url: 'https://jobs.lever.co/acme/abc-123',
    application_url: 'https://jobs.lever.co/acme/abc-123/apply',
  });
  expect(job.description_sections!.map((s) => [s.id, s.order, s.title])).toEqual([
    ['description', 1, 'Description'],
    ['list-1', 2, 'Requirements'],
    ['additional', 3, 'Additional information'],
  ]);
  expect(mapLeverPosting({ id: 'x', text: 'y', workplaceType: 'unspecified' }).remote).toBeNull();
  expect(await parseJobFeed([job])).toHaveLength(1);
});

test('helpers: only http(s) URLs survive, entities decode, names split, categories by keyword', () => {
  expect(httpUrl('https://a.example/x')).toBe('https://a.example/x');
  for (const bad of ['javascript:alert(1)', 'data:text/html,x', 'ftp://a.example', 'not a url', 42]) expect(httpUrl(bad)).toBeNull();
  expect(decodeEntities('&lt;b&gt; &amp;amp; &#228; &#x1F600; &unknown;')).toBe('<b> &amp; ä 😀 &unknown;');
  expect(candidateName({ full_name: 'Ada King Lovelace' })).toEqual({ first: 'Ada King', last: 'Lovelace', full: 'Ada King Lovelace' });
  expect(candidateName({ first_name: 'Ada', last_name: 'Lovelace' })).toMatchObject({ first: 'Ada', last: 'Lovelace' });
  expect(candidateName({ full_name: 'Cher' })).toMatchObject({ first: 'Cher', last: 'Cher' });
  expect(categoryFrom('People & Culture')).toBe('hr_recruitment');
  expect(categoryFrom(undefined, 'Unicorn Wrangling')).toBeNull();
});

test('an import feed refuses URL fields that are not http(s)', async () => {
  await expect(parseJobFeed([{ external_id: 'u', posting_url: 'javascript:alert(1)' }])).rejects.toThrow(
    expect.objectContaining({ errors: { '[0].posting_url': ['Must be an http(s) URL.'] } }),
  );
});
