/**
 * The generated validators (scripts/validators.ts) are committed; they must be what the schemas and the
 * ajv configuration give today, and behave as ajv compiling the same schema at runtime would.
 */
import { ajv } from '#platform/validation.js';
import { lazyValidator, toFieldErrors } from '#platform/field-errors.js';
import { loadApplicationInValidator } from '#generated/applications-validators.js';
import { loadCompanyPatchValidator } from '#generated/companies-validators.js';
import { loadJobInputValidator } from '#generated/jobs-validators.js';
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
];

test.each(samples)('the generated %s validator reports what a runtime-compiled one does', (_name, load, schema, values) => {
  const generated = lazyValidator(load);
  const compiled = ajv.compile(schema);
  for (const value of values) {
    expect(generated(value)).toBe(compiled(value));
    expect(toFieldErrors(generated.errors)).toEqual(toFieldErrors(compiled.errors));
  }
});
