/**
 * The generated validators (scripts/validators.ts) are committed; they must be what the schemas and the
 * ajv configuration give today, and behave as ajv compiling the same schema at runtime would.
 */
import { ajv } from '#platform/validation.js';
import { lazyValidator, toFieldErrors } from '#platform/field-errors.js';
import { loadApplicationInValidator } from '#generated/applications-validators.js';
import { loadCompanyPatchValidator } from '#generated/companies-validators.js';
import { loadJobInputValidator } from '#generated/jobs-validators.js';
import { loadApplicationFiltersValidator } from '#generated/applications-filter-validators.js';
import { loadCompanyFiltersValidator } from '#generated/companies-filter-validators.js';
import { loadJobFiltersValidator } from '#generated/jobs-filter-validators.js';
import { APPLICATION_FILTER_QUERY_SCHEMA } from '#applications/application-filters.js';
import { COMPANY_FILTER_QUERY_SCHEMA } from '#companies/company-filters.js';
import { JOB_FILTER_QUERY_SCHEMA } from '#jobs/job-filters.js';
import { applicationInSchema } from '#applications/applications.js';
import { companyPatchSchema } from '#companies/company-schema.js';
import { jobInputSchema } from '#jobs/job-schema.js';
import { committedValidatorModule, generateValidatorModule, validatorModules } from '../../scripts/validators.js';

test.each(validatorModules.map((m) => [m.file, m] as const))('%s is up to date (else run `npm run validators`)', async (_file, module) => {
  const fresh = await generateValidatorModule(module);
  expect(committedValidatorModule(module) === fresh).toBe(true);
});

const samples: [string, () => ReturnType<typeof loadCompanyPatchValidator>, object, unknown[]][] = [
  [
    'CompanyPatch',
    loadCompanyPatchValidator,
    companyPatchSchema,
    [
      {},
      { name: '' },
      { website: 'not a url', logo: null, primary_color: '#12345', contact_email: 'x@', extra: 1 },
      { name: 'A'.repeat(300), ats: 'nope' },
    ],
  ],
  [
    'ApplicationIn',
    loadApplicationInValidator,
    applicationInSchema,
    [
      { candidate: { email: 'a@example.com', full_name: 'A' }, job: 1 },
      { candidate: { email: 'nope', birthdate: '2020-13-01', skills: [1] }, job: 0, applied_at: 'yesterday' },
      { candidate: {}, attachments: [{ name: '', data: 'x' }], social_links: { a: 'x' }, screening_questions: [{}] },
      [],
    ],
  ],
  ['JobInput', loadJobInputValidator, jobInputSchema, [{}, { external_id: 1, title: null }, 'job']],
  // The list filters' query schemas (P292): what `FilterSet.read` hands over, text only.
  [
    'JobFilters',
    loadJobFiltersValidator,
    JOB_FILTER_QUERY_SCHEMA,
    [
      { status: 'active', title: 'x'.repeat(500), updated_at: '2026-01-01' },
      { status: 'open', country: '😀'.repeat(251), created_at: '2026-02-30' },
    ],
  ],
  [
    'ApplicationFilters',
    loadApplicationFiltersValidator,
    APPLICATION_FILTER_QUERY_SCHEMA,
    [
      { partner: '12', job: '007', sync_status: 'SUCCESS' },
      { partner: '0', agency: '9007199254740992', applied_at: 'soon', sync_status: 'x' },
    ],
  ],
  [
    'CompanyFilters',
    loadCompanyFiltersValidator,
    COMPANY_FILTER_QUERY_SCHEMA,
    [
      { status: ['active', 'deleted'], job_sync_active: 'True' },
      { status: ['active', 'gone'], candidate_sync_active: 'yes', name: 'x'.repeat(501) },
    ],
  ],
];

test.each(samples)('the generated %s validator reports what a runtime-compiled one does', (_name, load, schema, values) => {
  const generated = lazyValidator(load);
  const compiled = ajv.compile(schema);
  for (const value of values) {
    expect(generated(value)).toBe(compiled(value));
    expect(toFieldErrors(generated.errors)).toEqual(toFieldErrors(compiled.errors));
  }
});
