/**
 * Issue 25 item 1: every response an HTTP test receives through `startTestRuntime().request` is checked
 * against the committed OpenAPI document (docs/generated/openapi.json) by Ajv, a JSON Schema 2020-12
 * validator (the document's dialect): the status must be one the operation declares, the content type one
 * it declares for that status, every required header present and valid, and the body valid against the
 * declared schema. Paths the document does not describe (the pages, the apply endpoint, the gateway's own
 * answers to unknown paths) are not the partner contract and are not checked here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { projectRoot } from '../../lib/project-paths.js';
import { DOCUMENT_ID, documentAjv } from '../contract/openapi-ajv.js';

type Json = any;

const doc: Json = JSON.parse(readFileSync(join(projectRoot, 'docs/generated/openapi.json'), 'utf8'));
// The document's schemas are checked against the meta-schema once, by test/unit/openapi.test.ts, not in every file.
const ajv = documentAjv(doc, { checkSchemas: false });
const compiled = new Map<string, ValidateFunction>();

/** A `#/components/...` reference of the document, resolved (responses and headers are not schemas). */
function resolve(node: Json): Json {
  let out = node;
  while (out && typeof out.$ref === 'string' && out.$ref.startsWith('#/')) {
    out = out.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, part: string) => at?.[part], doc);
  }
  return out;
}

/** A schema with its local references pointing into the document Ajv holds. */
function absolute(schema: Json): Json {
  if (Array.isArray(schema)) return schema.map(absolute);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Json = {};
  for (const [key, value] of Object.entries(schema))
    out[key] = key === '$ref' && typeof value === 'string' && value.startsWith('#/') ? `${DOCUMENT_ID}${value}` : absolute(value);
  return out;
}

function validator(schema: Json): ValidateFunction {
  const key = JSON.stringify(schema);
  let found = compiled.get(key);
  if (!found) compiled.set(key, (found = ajv.compile(absolute(schema))));
  return found;
}

const templates = Object.keys(doc.paths).map((template) => ({
  template,
  pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The operation the document declares for a request, if it describes that path and method. */
export function operationFor(method: string, url: string): Json | undefined {
  const path = new URL(url, 'http://x').pathname;
  const match = templates.find((t) => t.pattern.test(path));
  return match ? doc.paths[match.template][method.toLowerCase()] : undefined;
}

const messages = (v: ValidateFunction) => (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message}`).join('; ');

/** The ways a response breaks the document (empty: it keeps it). */
export function contractViolations(method: string, url: string, status: number, headers: Headers, body: unknown): string[] {
  const operation = operationFor(method, url);
  if (!operation) return [];
  const declared = operation.responses?.[String(status)] ?? operation.responses?.[`${String(status)[0]}XX`] ?? operation.responses?.default;
  if (!declared) return [`status ${status} is not declared for ${method} ${operation.operationId}`];
  const response = resolve(declared);
  const out: string[] = [];
  for (const [name, header] of Object.entries<Json>(response.headers ?? {})) {
    const spec = resolve(header);
    const value = headers.get(name);
    if (value === null) {
      if (spec.required) out.push(`required header ${name} is missing`);
      continue;
    }
    const typed = spec.schema?.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
    const check = validator(spec.schema ?? {});
    if (!check(typed)) out.push(`header ${name}: ${messages(check)}`);
  }
  const content = response.content as Record<string, Json> | undefined;
  if (!content) {
    if (body !== undefined && body !== '') out.push(`status ${status} declares no body, but one was sent`);
    return out;
  }
  const mediaType = (headers.get('content-type') ?? '').split(';')[0].trim().toLowerCase();
  const media = content[mediaType];
  if (!media) return [...out, `content type "${mediaType}" is not declared for status ${status} (${Object.keys(content).join(', ')})`];
  if (media.schema) {
    const check = validator(media.schema);
    if (!check(body)) out.push(`body: ${messages(check)}`);
  }
  return out;
}

/** Throws when a response breaks the document, naming the request and every violation. */
export function assertKeepsContract(method: string, url: string, status: number, headers: Headers, body: unknown): void {
  const violations = contractViolations(method, url, status, headers, body);
  if (violations.length) throw new Error(`${method} ${url} → ${status} breaks docs/generated/openapi.json:\n- ${violations.join('\n- ')}`);
}
