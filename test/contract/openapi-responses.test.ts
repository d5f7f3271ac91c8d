/**
 * Contract tests: real responses of every operation, through HTTP into the local runtime, validated
 * against the response schemas of the OpenAPI document as the document wires them (operation → status →
 * schema), with the field order of the records the service shapes. Also GET /openapi.json.
 */
import type { ValidateFunction } from 'ajv';
import { createChannel } from '#applications/channels.js';
import { applyChannelItems } from '#companies/apply-channels.js';
import { setEntitlements } from '#companies/company-store.js';
import { openApiDocument } from '#http/openapi.js';
import { acceptClockHeader } from '../../local/http-adapter.js';
import { aCompany, aJob, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestResponse, type TestRuntime } from '../helpers/runtime.js';
import { compileRef, documentAjv } from './openapi-ajv.js';

const doc = openApiDocument() as any;
const ajv = documentAjv(doc);

/** Components whose field order the service fixes (toCompany, toJob, toApplication, the envelope, D2). */
const SHAPED = new Set([
  'Company',
  'CompanyPage',
  'Job',
  'JobListItem',
  'JobPage',
  'Application',
  'ApplicationListItem',
  'ApplicationPage',
  'CandidateSingleForm',
  'CandidateListForm',
  'Attachment',
  'Error',
]);

const operations = new Map<string, any>();
for (const item of Object.values(doc.paths as Record<string, Record<string, any>>))
  for (const op of Object.values(item)) operations.set(op.operationId, op);

const validators = new Map<string, ValidateFunction>();
function validatorFor(ref: string): ValidateFunction {
  let validate = validators.get(ref);
  if (!validate) validators.set(ref, (validate = compileRef(ajv, ref)));
  return validate;
}

const resolve = (ref: string): any =>
  ref
    .split('/')
    .slice(1)
    .reduce((node: any, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);

/** Checks that the keys of `value` come in the order of the schema's properties, through the shaped components. */
function expectFieldOrder(value: unknown, schema: any, where: string): void {
  if (schema.$ref) {
    const name = schema.$ref.split('/').pop();
    if (SHAPED.has(name)) expectFieldOrder(value, resolve(schema.$ref), `${where}<${name}>`);
    return;
  }
  if (Array.isArray(value) && schema.items) value.forEach((item, i) => expectFieldOrder(item, schema.items, `${where}[${i}]`));
  if (schema.anyOf) for (const branch of schema.anyOf) if (branch.$ref) expectFieldOrder(value, branch, where);
  if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    const keys = Object.keys(value);
    expect([where, keys]).toEqual([where, Object.keys(schema.properties).filter((k) => keys.includes(k))]);
    for (const key of keys) expectFieldOrder((value as Record<string, unknown>)[key], schema.properties[key], `${where}.${key}`);
  }
}

const checked = new Set<string>();

/** Validates a response against the document: the status is documented for the operation, the body fits its schema. */
function expectDocumented(operationId: string, res: TestResponse, status: number): void {
  expect([operationId, res.status, res.body]).toEqual([operationId, status, expect.anything()]);
  const op = operations.get(operationId);
  let response = op.responses[String(status)];
  if (!response) throw new Error(`${operationId} does not document status ${status}`);
  if (response.$ref) response = resolve(response.$ref);
  const schema = response.content['application/json'].schema;
  const validate = validatorFor(schema.$ref);
  if (!validate(res.body))
    throw new Error(
      `${operationId} ${status} does not match ${schema.$ref}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(res.body, null, 2).slice(0, 3000)}`,
    );
  expectFieldOrder(res.body, schema, `${operationId} ${status}`);
  for (const name of Object.keys(response.headers ?? {})) {
    // Optional response headers (Idempotent-Replayed) are only checked where the test expects them.
    if (name !== 'Idempotent-Replayed') expect([name, res.headers.get(name)]).toEqual([name, expect.any(String)]);
  }
  checked.add(`${operationId} ${status}`);
}

const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let other: Awaited<ReturnType<typeof aCompany>>;
let jobId: number;
const as = () => ({ key: partner.key, companyId: company.id });

const fullCandidate = {
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'Lovelace',
  gender: 'female',
  birthdate: '1990-12-10',
  language: 'en',
  nationality: 'GB',
  phone: '+44 1',
  location: { street: '1 Main St', city: 'London', country: 'GB', postcode: 'N1' },
  skills: ['math'],
};

beforeAll(async () => {
  acceptClockHeader();
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id);
  other = await aCompany(partner.id, { ats: null, entitlements: [] });
  await createChannel({ slug: 'contract-board', name: 'Contract Board', logo: 'https://logo.example/c.png' });
  // An apply channel the company is entitled to: its jobs carry a non-empty `apply_webhooks` (P197).
  await createChannel({ slug: 'contract-apply', name: 'Contract Apply' }, (c) =>
    applyChannelItems(c, 'generic', 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0'),
  );
  await setEntitlements(company.id, ['apply:contract-apply']);
  await withJobs(company.id, [
    aJob({
      external_id: 'C-1',
      description_sections: [{ id: 's1', type: 'intro', order: 1, title: 'Intro', content: 'Hello' }],
      screening_questions: [{ id: 'q1', question: 'Why?', answer_type: 'text', required: true, options: [{ label: 'A', value: 'a' }] }],
      application_form_fields: [{ id: 'f1', name: 'cv', label: 'CV', type: 'file', subtype: null, required: true, order: 1, options: [] }],
      salary_from: 1000.5,
      latitude: 52.5,
      start_date: '2027-01-01',
      category: 'software_development',
      custom_fields: { team: 'x' },
      raw_values: { a: [1] },
    }),
    aJob({ external_id: 'C-2', remote: null, status: 'archived' }),
    aJob({ external_id: 'C-3' }),
  ]);
  jobId = (await api.get('/jobs?external_id=C-1', as())).body.results[0].id;
});
afterAll(async () => {
  acceptClockHeader(false);
  await api.stop();
});

describe('GET /openapi.json', () => {
  test('serves the generated document without authentication', async () => {
    const res = await api.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual(doc);
  });
});

describe('companies', () => {
  test('ListCompanies: partner key, company key, repeated status, ordering, paging', async () => {
    expectDocumented('ListCompanies', await api.get('/companies/', { key: partner.key }), 200);
    expectDocumented('ListCompanies', await api.get('/companies/', { key: company.key }), 200);
    const paged = await api.get('/companies?status=active&status=invited&ordering=-name&page_size=1&page=2', { key: partner.key });
    expectDocumented('ListCompanies', paged, 200);
    expect(paged.body.previous).toEqual(expect.any(String));
    expectDocumented('ListCompanies', await api.get('/companies/?job_sync_active=maybe', { key: partner.key }), 400);
    expectDocumented('ListCompanies', await api.get('/companies/'), 401);
  });

  test('UpdateCompany: 200 with the full Company; 400, 404, 415, 403', async () => {
    const body = {
      name: 'Renamed',
      website: 'https://acme.example',
      primary_color: '#12AB34',
      contact_email: 'hr@acme.example',
      city: null,
    };
    const res = await api.request('PATCH', `/companies/${company.id}/`, { ...as(), body });
    expectDocumented('UpdateCompany', res, 200);
    expect(res.body).toMatchObject(body);
    expectDocumented(
      'UpdateCompany',
      await api.request('PATCH', `/companies/${company.id}/`, { ...as(), body: { primary_color: 'red', bogus: 1 } }),
      400,
    );
    expectDocumented('UpdateCompany', await api.request('PATCH', `/companies/${other.id}/`, { ...as(), body: { name: 'X' } }), 404);
    expectDocumented(
      'UpdateCompany',
      await api.request('PATCH', `/companies/${company.id}/`, { ...as(), rawBody: 'name=x', headers: { 'Content-Type': 'text/plain' } }),
      415,
    );
    expectDocumented(
      'UpdateCompany',
      await api.request('PATCH', `/companies/${other.id}/`, { key: company.key, companyId: other.id, body: { name: 'X' } }),
      403,
    );
  });
});

describe('jobs', () => {
  test('ListJobs: list form (section order as a string), paging links, filters; 400 and missing Company-Id', async () => {
    const res = await api.get('/jobs?limit=1&page=2', as());
    expectDocumented('ListJobs', res, 200);
    expect([res.body.next, res.body.previous]).toEqual([expect.any(String), expect.any(String)]);
    const full = await api.get('/jobs?external_id=C-1', as());
    expectDocumented('ListJobs', full, 200);
    expect(full.body.results[0].description_sections[0].order).toBe('1');
    expect(Object.keys(full.body.results[0].apply_webhooks)).toEqual(['contract-apply']);
    expectDocumented('ListJobs', await api.get('/jobs/?status=archived&created_at=2020-01-01&pagination=true', as()), 200);
    expectDocumented('ListJobs', await api.get('/jobs?status=open', as()), 400);
    expectDocumented('ListJobs', await api.get('/jobs', { key: partner.key }), 400);
  });

  test('GetJob: single form (section order as a number); 404', async () => {
    const res = await api.get(`/jobs/${jobId}`, as());
    expectDocumented('GetJob', res, 200);
    expect(res.body.description_sections[0].order).toBe(1);
    expect(Object.keys(res.body.apply_webhooks)).toEqual(['contract-apply']);
    expectDocumented('GetJob', await api.get('/jobs/999999/', as()), 404);
    expectDocumented('GetJob', await api.get(`/jobs/${jobId}`, { key: 'not-a-key', companyId: company.id }), 401);
  });
});

describe('applications', () => {
  let createdId: number;
  let oldId: number;
  const post = (body: unknown, headers?: Record<string, string>) => api.request('POST', '/applications/', { ...as(), body, headers });

  test('CreateApplication: JSON, urlencoded and multipart bodies give the single form (no birthdate, D9)', async () => {
    const res = await post({
      job: jobId,
      external_job_id: 'C-1',
      application_url: 'https://board.example/1',
      agency_job_id: 'AG',
      partner_job_id: 'PJ',
      partner_company_id: 'PC',
      partner_application_id: 'PA',
      candidate: fullCandidate,
      applied_at: '2026-01-02T03:04:05Z',
      notes: 'n',
      channel: 'contract-board',
      social_links: { linkedin: 'https://linkedin.example/ada' },
      screening_questions: [{ id: 'q1', question: 'Why?', answer_type: 'text', answer: 'Because' }],
      custom_fields: { a: 1 },
      attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: PDF.toString('base64') }],
    });
    expectDocumented('CreateApplication', res, 201);
    expect(res.body.talent_channel_name).toBe('Contract Board');
    createdId = res.body.id;

    const form = new URLSearchParams({
      external_job_id: 'C-1',
      'candidate[email]': 'form@example.com',
      'candidate[full_name]': 'Form User',
      custom_fields: '{"b":2}',
    });
    expectDocumented(
      'CreateApplication',
      await api.request('POST', '/applications/', {
        ...as(),
        rawBody: form.toString(),
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      }),
      201,
    );

    const multipart = new FormData();
    multipart.set('job', String(jobId));
    multipart.set('candidate', JSON.stringify({ email: 'multi@example.com', first_name: 'Multi', last_name: 'Part' }));
    multipart.set('cv', new Blob([PDF], { type: 'application/pdf' }), 'resume.pdf');
    const response = await fetch(`${api.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${partner.key}`, 'Company-Id': String(company.id) },
      body: multipart,
    });
    const multi: TestResponse = { status: response.status, headers: response.headers, body: await response.json() };
    expectDocumented('CreateApplication', multi, 201);
    expect(multi.body.attachments).toEqual([{ type: 'cv', name: 'resume.pdf', content_type: 'application/pdf' }]);
  });

  test('CreateApplication: an application older than 180 days reads anonymized (D10)', async () => {
    // Created 200 days ago: this request's clock only (`X-Fake-Now`, P183).
    const res = await post(
      { job: jobId, candidate: { email: 'old@example.com', full_name: 'Old Timer' } },
      { 'X-Fake-Now': new Date(Date.now() - 200 * 24 * 3600 * 1000).toISOString() },
    );
    expectDocumented('CreateApplication', res, 201);
    oldId = res.body.id;
  });

  test('CreateApplication: idempotent replay (201 + Idempotent-Replayed), reuse with another body (422); 400, 415, 403', async () => {
    const headers = { 'Idempotency-Key': `contract-${Date.now()}` };
    const body = { job: jobId, candidate: { email: 'idem@example.com', full_name: 'Idem Potent' } };
    const first = await post(body, headers);
    expectDocumented('CreateApplication', first, 201);
    const replay = await post(body, headers);
    expectDocumented('CreateApplication', replay, 201);
    expect([replay.body.id, replay.headers.get('idempotent-replayed')]).toEqual([first.body.id, 'true']);
    expectDocumented('CreateApplication', await post({ ...body, notes: 'changed' }, headers), 422);
    expectDocumented('CreateApplication', await post({ job: jobId, candidate: { email: 'not-an-email' } }), 400);
    expectDocumented(
      'CreateApplication',
      await api.request('POST', '/applications/', { ...as(), rawBody: '<x/>', headers: { 'Content-Type': 'application/xml' } }),
      415,
    );
    expectDocumented(
      'CreateApplication',
      await api.request('POST', '/applications/', { key: company.key, companyId: other.id, body }),
      403,
    );
  });

  test('GetApplication: single form, anonymized form; 404', async () => {
    const res = await api.get(`/applications/${createdId}`, as());
    expectDocumented('GetApplication', res, 200);
    expect(res.body.candidate).not.toHaveProperty('birthdate');
    const old = await api.get(`/applications/${oldId}/`, as());
    expectDocumented('GetApplication', old, 200);
    expect(old.body.status).toBe('anonymized');
    expect(old.body).not.toHaveProperty('candidate');
    expectDocumented('GetApplication', await api.get('/applications/999999', as()), 404);
  });

  test('ListApplicationDeliveries: the delivery log (D23), a page of it; 404; 400', async () => {
    await api.runtime.poller.drain();
    const res = await api.get(`/applications/${createdId}/deliveries?page_size=1`, as());
    expectDocumented('ListApplicationDeliveries', res, 200);
    expectDocumented('ListApplicationDeliveries', await api.get(`/applications/${oldId}/deliveries`, as()), 200);
    expectDocumented('ListApplicationDeliveries', await api.get('/applications/999999/deliveries', as()), 404);
    expectDocumented('ListApplicationDeliveries', await api.get(`/applications/${createdId}/deliveries?page_size=x`, as()), 400);
  });

  test('ListApplications: list form (with birthdate, D9), anonymized entries, filters; 400', async () => {
    const res = await api.get('/applications/?page_size=50', as());
    expectDocumented('ListApplications', res, 200);
    const byId = new Map(res.body.results.map((a: { id: number }) => [a.id, a]));
    expect((byId.get(createdId) as any).candidate).toMatchObject({ birthdate: '1990-12-10', language: 'en', nationality: 'GB' });
    expect((byId.get(oldId) as any).status).toBe('anonymized');
    expectDocumented(
      'ListApplications',
      await api.get(`/applications?job=${jobId}&email=ada@example.com&sync_status=NOTSENT&sync_status=SUCCESS&applied_at=2020-01-01`, as()),
      200,
    );
    expectDocumented('ListApplications', await api.get('/applications/?page_size=1&page=2', as()), 200);
    expectDocumented('ListApplications', await api.get('/applications/?created_at=yesterday', as()), 400);
  });
});

describe('errors outside the operations', () => {
  test('an unknown path (404) and a method the path does not offer (405 + Allow) have the D2 shape', async () => {
    const validate = validatorFor('#/components/schemas/Error');
    const unknown = await api.get('/nothing-here', { key: partner.key });
    const method = await api.request('DELETE', '/jobs', as());
    expect([unknown.status, method.status, method.headers.get('allow')]).toEqual([404, 405, 'GET']);
    expect([validate(unknown.body), validate(method.body)]).toEqual([true, true]);
  });
});

test('every operation of the document had its success response and at least one error checked', () => {
  const missing: string[] = [];
  for (const [id, op] of operations) {
    const statuses = Object.keys(op.responses);
    const success = statuses.find((s) => s.startsWith('2'))!;
    if (!checked.has(`${id} ${success}`)) missing.push(`${id} ${success}`);
    if (!statuses.some((s) => !s.startsWith('2') && checked.has(`${id} ${s}`))) missing.push(`${id} (an error)`);
  }
  expect(missing).toEqual([]);
});
