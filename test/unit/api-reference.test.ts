/**
 * The API reference page (issue 14): shared/http/api-reference.generated.ts is what `npm run api-reference`
 * renders from docs/openapi.json now (so it cannot go stale), and it needs no other host: Redoc's script is
 * inlined and the only scripts are the inline ones the CSP allows by hash.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { renderApiReference } from '../../scripts/api-reference.js';
import { API_REFERENCE_HTML, API_REFERENCE_SCRIPT_HASHES } from '#http/api-reference.generated.js';
import { API_REFERENCE_CSP } from '#http/api-reference.js';

test('the committed page is the one rendered from docs/openapi.json now', () => {
  const committed = readFileSync('shared/http/api-reference.generated.ts', 'utf8');
  if (renderApiReference() !== committed)
    throw new Error('shared/http/api-reference.generated.ts is stale: run `npm run api-reference` and commit the result.');
}, 60_000);

test('every script is inline, allowed by its hash, and nothing is loaded from another host', () => {
  const scripts = [...API_REFERENCE_HTML.matchAll(/<script(\s[^>]*)?>([\s\S]*?)<\/script>/g)];
  expect(scripts.length).toBeGreaterThan(0);
  for (const [, attributes = '', body] of scripts) {
    expect(attributes).not.toContain('src=');
    const hash = `sha256-${createHash('sha256').update(body, 'utf8').digest('base64')}`;
    expect(API_REFERENCE_SCRIPT_HASHES).toContain(hash);
    expect(API_REFERENCE_CSP).toContain(`'${hash}'`);
  }
  expect(API_REFERENCE_HTML).not.toMatch(/<(link|script|img|iframe)[^>]+(href|src)="(https?:)?\/\//);
  expect(API_REFERENCE_CSP).not.toMatch(/https?:|unsafe-eval|\*/);
});
