/**
 * The check every HTTP test's responses pass through (issue 25 item 1, `test/support/openapi-conformance.ts`)
 * finds what breaks the document: a status the operation does not declare, an undeclared content type, a
 * missing or invalid required header, a body off its schema. `contractFetch` (test/helpers/runtime.ts) applies
 * it to responses a test fetches itself.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { contractViolations } from '../support/openapi-conformance.js';
import { contractFetch } from '../helpers/runtime.js';

const json = { 'Content-Type': 'application/json', 'X-Request-Id': 'req-1' };
const notFound = { detail: 'Not found.', code: 'not_found' };

test('a declared error in the D2 shape keeps the document', () => {
  expect(contractViolations('GET', '/jobs/7', 404, new Headers(json), notFound)).toEqual([]);
});

test('paths the document does not describe are not checked', () => {
  expect(contractViolations('GET', '/connect/abc', 418, new Headers(), 'teapot')).toEqual([]);
});

test.each([
  ['an undeclared status', 409, json, notFound, /status 409 is not declared/],
  ['an undeclared content type', 404, { ...json, 'Content-Type': 'text/html' }, '<p>no</p>', /content type "text\/html" is not declared/],
  ['a missing required header', 404, { 'Content-Type': 'application/json' }, notFound, /required header X-Request-Id is missing/],
  ['a body off its schema', 404, json, { detail: 'Not found.' }, /body: .*code/],
])('%s is a violation', (_what, status, headers, body, message) => {
  const violations = contractViolations('GET', '/jobs/7', status, new Headers(headers), body);
  expect(violations.join('\n')).toMatch(message);
});

test("a job whose field has the wrong type breaks the Job schema (the document's own components are used)", () => {
  const violations = contractViolations('GET', '/jobs/7', 200, new Headers(json), { id: 'seven' });
  expect(violations.some((v) => v.startsWith('body:'))).toBe(true);
});

describe('contractFetch', () => {
  let server: Server;
  let url: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(404, req.url === '/jobs/1' ? json : { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(notFound));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  test('passes a response that keeps the document on, still readable', async () => {
    const response = await contractFetch(`${url}/jobs/1`);
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual(notFound);
  });

  test('throws for one that breaks it, naming the request and the violation', async () => {
    await expect(contractFetch(new Request(`${url}/jobs/2`))).rejects.toThrow(/GET .*\/jobs\/2 → 404 breaks .*X-Request-Id is missing/s);
  });
});
