/**
 * The API reference page (issue 14): docs/generated/api-reference.html (and the hashes of its scripts in
 * shared/generated/http-api-reference.ts) is what `npm run api-reference` renders from
 * docs/generated/openapi.json now (so it cannot go stale), and it needs no other host: Redoc's script is inlined and the only scripts are the inline
 * ones the CSP allows by hash. The handler serves that file (P167), within Lambda's response limit.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { API_REFERENCE_MODULE_FILE, API_REFERENCE_PAGE_FILE, renderApiReference } from '../../scripts/api-reference.js';
import { API_REFERENCE_SCRIPT_HASHES } from '#generated/http-api-reference.js';
import { API_REFERENCE_CSP, API_REFERENCE_PAGE, apiReference } from '#http/api-reference.js';

const html = readFileSync(API_REFERENCE_PAGE_FILE, 'utf8');

test('the committed page is the one rendered from docs/generated/openapi.json now', () => {
  const { page, module } = renderApiReference();
  const stale = [
    ...(page === html ? [] : [API_REFERENCE_PAGE_FILE]),
    ...(module === readFileSync(API_REFERENCE_MODULE_FILE, 'utf8') ? [] : [API_REFERENCE_MODULE_FILE]),
  ];
  if (stale.length) throw new Error(`stale: ${stale.join(', ')}; run \`npm run api-reference\` and commit the result.`);
});

test('every script is inline, allowed by its hash, and nothing is loaded from another host', () => {
  const scripts = [...html.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes = '', body] of scripts) {
    expect(attributes).not.toContain('src=');
    const hash = `sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}`;
    expect(API_REFERENCE_SCRIPT_HASHES).toContain(hash);
    expect(API_REFERENCE_CSP).toContain(`'${hash}'`);
  }
  expect(html).not.toMatch(/<(link|script|img|iframe)[^>]+(href|src)="(https?:)?\/\//);
  expect(API_REFERENCE_CSP).not.toMatch(/https?:|unsafe-eval|\*/);
});

test('the handler serves that file, and its response fits within the 6 MB Lambda allows a synchronous invocation', async () => {
  expect(API_REFERENCE_PAGE).toBe(basename(API_REFERENCE_PAGE_FILE));
  const event = { requestContext: { requestId: 'r1' } } as unknown as APIGatewayProxyEvent;
  const response = await apiReference(event);
  expect(response.statusCode).toBe(200);
  expect(response.body).toBe(html);
  // The invocation response is the JSON of this object (with the body's escapes): leave room to grow.
  const bytes = Buffer.byteLength(JSON.stringify(response), 'utf8');
  expect(bytes).toBeLessThan(4 * 1024 * 1024);
  // The second request is served from memory: the same string.
  expect((await apiReference(event)).body).toBe(response.body);
});
