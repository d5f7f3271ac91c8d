/**
 * Starts the local runtime for one test file: emulators and the HTTP adapter on ephemeral loopback
 * ports, data in a fresh temporary directory. Requests go through real HTTP.
 */
import { assertKeepsContract } from '../support/openapi-conformance.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startRuntime, type Runtime } from '../../local/runtime.js';

export interface TestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface RequestOptions {
  key?: string;
  companyId?: number | string;
  body?: unknown;
  rawBody?: string | Buffer;
  headers?: Record<string, string>;
}

export interface TestRuntime {
  url: string;
  runtime: Runtime;
  request<T = any>(method: string, path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  get<T = any>(path: string, options?: RequestOptions): Promise<TestResponse<T>>;
  stop(): Promise<void>;
}

/** A response body as JSON, or its raw text when it is not JSON (undefined when empty). */
function parseBody(text: string): unknown {
  try {
    return text ? JSON.parse(text) : undefined;
  } catch {
    return text;
  }
}

/**
 * `fetch`, with the response checked against the OpenAPI document as `request` checks it (issue 25): for tests
 * that send what `request` cannot (raw bodies, odd headers, a typed client's own requests). The caller reads
 * the response as usual.
 */
export async function contractFetch(input: string | Request, init?: RequestInit): Promise<Response> {
  const response = await fetch(input, init);
  const method = init?.method ?? (typeof input === 'string' ? 'GET' : input.method);
  const url = typeof input === 'string' ? input : input.url;
  assertKeepsContract(method, url, response.status, response.headers, parseBody(await response.clone().text()));
  return response;
}

export async function startTestRuntime(options: { authorizerCacheTtlMs?: number } = {}): Promise<TestRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'his-test-'));
  const runtime = await startRuntime({
    dataDir,
    port: 0,
    seed: false,
    schedules: false,
    poller: false,
    dropTable: true,
    authorizerCacheTtlMs: options.authorizerCacheTtlMs ?? 0,
  });
  // Connected tests refuse to run against anything but the local emulators.
  for (const name of ['AWS_ENDPOINT_URL_DYNAMODB', 'AWS_ENDPOINT_URL_SQS', 'AWS_ENDPOINT_URL_S3', 'AWS_ENDPOINT_URL_SNS']) {
    if (!/^http:\/\/127\.0\.0\.1:\d+$/.test(process.env[name] ?? '')) throw new Error(`${name} is not a local endpoint; refusing to run`);
  }
  async function request<T>(method: string, path: string, o: RequestOptions = {}): Promise<TestResponse<T>> {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.key) headers.Authorization = `Bearer ${o.key}`;
    if (o.companyId !== undefined) headers['Company-Id'] = String(o.companyId);
    let body: string | Buffer | undefined = o.rawBody;
    if (o.body !== undefined) {
      body = JSON.stringify(o.body);
      headers['Content-Type'] ??= 'application/json';
    }
    const response = await fetch(`${runtime.url}${path}`, { method, headers, body });
    const parsed = parseBody(await response.text());
    // Every response keeps the OpenAPI document (issue 25), or the test fails here, naming how.
    assertKeepsContract(method, path, response.status, response.headers, parsed);
    return { status: response.status, headers: response.headers, body: parsed as T };
  }
  return {
    url: runtime.url,
    runtime,
    request,
    get: (path, o) => request('GET', path, o),
    async stop() {
      await runtime.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
