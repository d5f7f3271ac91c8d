/**
 * The OpenAPI document: committed copy current, Redocly lint clean (offline), every route of the route
 * table documented once with its operationId and headers, every schema compilable. Real responses are
 * checked against it in test/contract/openapi-responses.test.ts.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { APPLICATION_FILTERS } from '#applications/application-list.js';
import { COMPANY_FILTERS, parseCompanyFilter } from '#companies/company-list.js';
import { idempotencyError } from '#http/idempotency-errors.js';
import { JOB_FILTERS } from '#jobs/job-list.js';
import { openApiDocument } from '#http/openapi.js';
import * as responseSchemas from '#http/response-schemas.js';
import { routes } from '#http/routes.js';
import { ajv as serviceAjv } from '#platform/validation.js';
import { compileRef, documentAjv } from '../contract/openapi-ajv.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const doc = openApiDocument() as any;

describe('docs/generated/openapi.json', () => {
  test('is the generated document (otherwise run `npm run openapi`)', () => {
    const committed = readFileSync(`${root}docs/generated/openapi.json`, 'utf8');
    const generated = `${JSON.stringify(doc, null, 2)}\n`;
    if (committed !== generated)
      throw new Error(
        'docs/generated/openapi.json is stale: it differs from openApiDocument(); run `npm run openapi` and commit the result.',
      );
  });

  test('passes redocly lint (recommended rules, redocly.yaml) with no errors or warnings, offline', () => {
    const cli = `${root}node_modules/@redocly/cli/bin/cli.js`;
    const run = spawnSync(process.execPath, [cli, 'lint', 'docs/generated/openapi.json', '--format=json'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 30_000,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', CI: 'true' },
    });
    const report = JSON.parse(run.stdout) as {
      totals: { errors: number; warnings: number };
      problems: { ruleId: string; message: string }[];
    };
    expect(report.problems.map((p) => `${p.ruleId}: ${p.message}`)).toEqual([]);
    expect(report.totals).toMatchObject({ errors: 0, warnings: 0 });
    expect(run.status).toBe(0);
  });
});

describe('operations from the route table', () => {
  const operations = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ path, method: method.toUpperCase(), op })),
  );

  test('every route appears exactly once, under its own path and method, with its id as operationId', () => {
    expect(operations).toHaveLength(routes.length);
    for (const route of routes) {
      const matching = operations.filter((o) => o.op.operationId === route.id);
      expect(matching.map(({ path, method }) => ({ path, method }))).toEqual([{ path: route.path, method: route.method }]);
      expect(matching[0].op.summary).toBe(route.summary);
    }
  });

  test.each(routes.map((r) => [r.id, r] as const))(
    '%s: Company-Id header iff the route needs it, path parameters, a described success response',
    (_id, route) => {
      const op = doc.paths[route.path][route.method.toLowerCase()];
      const refs = op.parameters.map((p: { $ref?: string; name?: string; in?: string }) => p.$ref ?? `${p.in}:${p.name}`);
      expect(refs.includes('#/components/parameters/CompanyId')).toBe(route.companyHeader);
      const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => `path:${name}`);
      expect(refs.filter((r: string) => r.startsWith('path:'))).toEqual(pathParams);
      const success = Object.entries(op.responses).filter(([status]) => status.startsWith('2'));
      expect(success).toHaveLength(1);
      // A route added to the table is documented generically until it gets an entry in OPERATIONS.
      const schema = (success[0][1] as any).content['application/json'].schema;
      if (!schema.$ref) throw new Error(`${route.id} has no response schema: describe it in OPERATIONS in shared/http/openapi.ts`);
      for (const status of ['400', '401', '403', '429', '500'])
        expect(op.responses[status]).toEqual({ $ref: expect.stringMatching(/^#\/components\/responses\//) });
    },
  );

  test('Company-Id is a required integer header', () => {
    expect(doc.components.parameters.CompanyId).toMatchObject({
      name: 'Company-Id',
      in: 'header',
      required: true,
      schema: { type: 'integer' },
    });
  });

  test.each([
    ['ListCompanies', COMPANY_FILTERS, ['page', 'page_size', 'cursor']],
    ['ListJobs', JOB_FILTERS, ['page', 'page_size', 'limit', 'cursor', 'pagination']],
    ['ListApplications', APPLICATION_FILTERS, ['page', 'page_size', 'cursor']],
  ] as const)('%s documents every filter and the paging parameters', (id, filters, paging) => {
    const route = routes.find((r) => r.id === id)!;
    const query = doc.paths[route.path].get.parameters
      .filter((p: { in?: string }) => p.in === 'query')
      .map((p: { name: string }) => p.name);
    expect(query).toEqual([...filters, ...paging]);
  });

  test('status on companies is repeatable; ordering follows what the code accepts', () => {
    const params = doc.paths['/companies/'].get.parameters;
    expect(params.find((p: { name: string }) => p.name === 'status')).toMatchObject({
      style: 'form',
      explode: true,
      schema: { type: 'array', items: { enum: expect.arrayContaining(['active', 'deleted']) } },
    });
    // A comma list of the fields the code orders by (P273): the pattern takes a value exactly when the code understands
    // each of its terms.
    const pattern = new RegExp(params.find((p: { name: string }) => p.name === 'ordering').schema.pattern);
    const known = (term: string) => parseCompanyFilter({ ordering: [`${term},name`] }).ordering.length === 2;
    const understood = (value: string) => value.split(',').every(known);
    const samples = ['name', '-status,name', ' -updated_at , created_at ', 'status,-status,name,-name', 'created_at,updated_at'];
    for (const value of [...samples, 'id', 'name,', ',name', 'name,,status', '--name', 'name;status', '-', '', 'Name', 'name status']) {
      expect([value, pattern.test(value)]).toEqual([value, understood(value)]);
    }
    expect(samples.every((value) => pattern.test(value))).toBe(true);
  });

  test('every header an error response sends is declared: Retry-After on the 409 of an Idempotency-Key in progress (P273)', () => {
    const inProgress = idempotencyError(Object.assign(new Error('busy'), { name: 'IdempotencyAlreadyInProgressError' }))!;
    expect(inProgress.statusCode).toBe(409);
    for (const header of Object.keys(inProgress.headers)) expect(Object.keys(doc.components.responses.Conflict.headers)).toContain(header);
  });

  test('CreateApplication: Idempotency-Key, three encodings, idempotency and body errors; PATCH takes JSON only', () => {
    const create = doc.paths['/applications/'].post;
    expect(create.parameters).toContainEqual({ $ref: '#/components/parameters/IdempotencyKey' });
    expect(Object.keys(create.requestBody.content)).toEqual([
      'application/json',
      'application/x-www-form-urlencoded',
      'multipart/form-data',
    ]);
    expect(create.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/ApplicationIn' });
    expect(Object.keys(create.responses)).toEqual(expect.arrayContaining(['201', '409', '413', '415', '422']));
    const patch = doc.paths['/companies/{id}/'].patch;
    expect(patch.requestBody.content).toEqual({ 'application/json': { schema: { $ref: '#/components/schemas/CompanyPatch' } } });
    expect(Object.keys(patch.responses)).toEqual(expect.arrayContaining(['200', '404', '415']));
    expect(doc.components.responses.Unauthorized.headers['WWW-Authenticate']).toBeDefined();
  });

  test('bearer authentication applies to every operation', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(operations.filter((o) => o.op.security !== undefined)).toEqual([]);
  });
});

describe('schemas', () => {
  test('every component schema compiles as JSON Schema 2020-12 (strict) and every $ref resolves', () => {
    const ajv = documentAjv(doc);
    for (const name of Object.keys(doc.components.schemas)) expect(() => compileRef(ajv, `#/components/schemas/${name}`)).not.toThrow();
  });

  test("the response schemas also compile in the service's strict draft-07 ajv (shared/validation.ts)", () => {
    const schemas = Object.entries(responseSchemas).filter(([, s]) => typeof s === 'object' && s !== null && !Array.isArray(s));
    expect(schemas.length).toBeGreaterThan(10);
    for (const [, schema] of schemas) expect(() => serviceAjv.compile(schema as object)).not.toThrow();
  });
});
