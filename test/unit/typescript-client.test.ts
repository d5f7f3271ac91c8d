/**
 * The TypeScript client (clients/typescript) as a package: its generated types are the ones openapi-typescript
 * makes from the OpenAPI document now (else `npm run openapi`); `npm pack` builds it and ships exactly the
 * built module, its declarations, the README and package.json; and the tarball, unpacked where a partner's
 * project would have it, imports under Node and type-checks a partner's code (a wrong filter value is a type
 * error). The transport's retry rules are checked here against a scripted fetch; against the local runtime in
 * test/http/typed-client.test.ts.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openApiDocument } from '#http/openapi.js';
import { projectRoot } from '../../lib/project-paths.js';
import { CLIENT_TYPES_FILE, renderClientTypes } from '../../scripts/client-types.js';
import { createTransport, DEFAULT_RETRY } from '../../clients/typescript/src/retry.js';
import { retryAfterSeconds } from '../../clients/typescript/src/errors.js';

const packageDir = join(projectRoot, 'clients/typescript');
const manifest = JSON.parse(readFileSync(join(packageDir, 'package.json'), 'utf8')) as { name: string; version: string };

test('the committed types are what openapi-typescript makes from the OpenAPI document now (otherwise run `npm run openapi`)', async () => {
  const generated = await renderClientTypes(openApiDocument());
  if (readFileSync(join(projectRoot, CLIENT_TYPES_FILE), 'utf8') !== generated)
    throw new Error(`${CLIENT_TYPES_FILE} is stale: run \`npm run openapi\` and commit the result.`);
  for (const operation of [
    'ListCompanies',
    'UpdateCompany',
    'ListJobs',
    'GetJob',
    'CreateApplication',
    'ListApplications',
    'GetApplication',
  ])
    expect(generated).toContain(`${operation}: {`);
});

/** npm's JSON report (lifecycle output may precede it). */
const packReport = (stdout: string) =>
  JSON.parse(stdout.slice(stdout.indexOf('['))) as { name: string; filename: string; files: { path: string }[] }[];

/** The package packed once, as `npm pack` (its `prepack` builds it), into a partner project's folder: its report. */
let dir: string;
let report: ReturnType<typeof packReport>[number];
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'client-pack-'));
  const stdout = execFileSync('npm', ['pack', '--json', '--pack-destination', dir], {
    cwd: packageDir,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  [report] = packReport(stdout);
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

test('npm pack builds the package and ships exactly the built module, its declarations, README and package.json', () => {
  expect(report.name).toBe(manifest.name);
  const files = report.files.map((f) => f.path).sort((a, b) => a.localeCompare(b));
  const modules = ['attachments', 'client', 'errors', 'generated/openapi', 'index', 'pagination', 'retry', 'types'];
  expect(files).toEqual(
    ['README.md', 'package.json', ...modules.flatMap((m) => [`dist/${m}.d.ts`, `dist/${m}.js`])].sort((a, b) => a.localeCompare(b)),
  );
});

describe('the packed tarball in a partner project', () => {
  beforeAll(() => {
    const installed = join(dir, 'node_modules', ...manifest.name.split('/'));
    mkdirSync(installed, { recursive: true });
    execFileSync('tar', ['-xzf', join(dir, report.filename), '-C', installed, '--strip-components=1']);
    // Its one dependency and the Node types, as npm would install them beside it.
    for (const dependency of ['openapi-fetch', '@types/node']) {
      mkdirSync(join(dir, 'node_modules', dependency, '..'), { recursive: true });
      symlinkSync(join(projectRoot, 'node_modules', dependency), join(dir, 'node_modules', dependency));
    }
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'partner', type: 'module', private: true }));
  });

  test('imports under Node with its exports', () => {
    const out = execFileSync(
      process.execPath,
      ['--input-type=module', '-e', `import * as c from '${manifest.name}'; console.log(Object.keys(c).sort().join(','));`],
      { cwd: dir, encoding: 'utf8' },
    );
    expect(out.trim().split(',')).toEqual(
      expect.arrayContaining([
        'createHiringClient',
        'attachmentFromBuffer',
        'attachmentFromFile',
        'HiringApiError',
        'NotFoundError',
        'ValidationError',
      ]),
    );
  });

  /** A partner's code, using the client and expecting one type error. */
  const partnerCode = [
    "import { createHiringClient, NotFoundError, type Job, type JobListItem } from '@hiring-integration/client';",
    "const client = createHiringClient({ baseUrl: 'http://127.0.0.1:3000', apiKey: 'key' });",
    'export async function titles(): Promise<string[]> {',
    '  const out: string[] = [];',
    "  for await (const job of client.company(1).jobs.list({ status: 'active' })) out.push((job satisfies JobListItem).title ?? String(job.id));",
    '  // @ts-expect-error the API has no job status "open"',
    "  client.company(1).jobs.list({ status: 'open' });",
    "  client.companies.list({ status: ['active', 'invited'], ordering: '-status,name' });",
    '  const job: Job = await client.company(1).jobs.get(1);',
    '  try {',
    '    await client.company(1).applications.get(job.id);',
    '  } catch (e) {',
    '    if (e instanceof NotFoundError) out.push(e.code, e.detail);',
    '  }',
    '  return out;',
    '}',
    '',
  ].join('\n');
  /** The README's TypeScript examples, with the names an example leaves to the reader declared. */
  const readmeBlocks = () => {
    const readme = readFileSync(join(dir, 'node_modules', ...manifest.name.split('/'), 'README.md'), 'utf8');
    return [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map(([, code]) => code);
  };
  let diagnostics: string[] | undefined;
  /**
   * tsc's diagnostics for both files, from one run against the shipped declarations (a partner's strict settings),
   * by line: each test reads its own file's.
   */
  const typeCheck = (): string[] => {
    if (diagnostics) return diagnostics;
    writeFileSync(join(dir, 'partner.ts'), partnerCode);
    const given = ['declare const coverLetterBytes: Buffer;', 'declare const myApplicationId: string;'];
    writeFileSync(join(dir, 'readme.ts'), [...given, ...readmeBlocks(), 'export {};', ''].join('\n'));
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
    };
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['partner.ts', 'readme.ts'] }));
    const tsc = join(projectRoot, 'node_modules', 'typescript', 'bin', 'tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', dir], { cwd: dir, encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout);
    }
    return (diagnostics = output.split('\n').filter((line) => line.trim()));
  };
  /** The diagnostics of one file (a message's continuation lines belong to the line above them). */
  const diagnosticsOf = (file: string) => {
    const out: string[] = [];
    let mine = false;
    for (const line of typeCheck()) {
      if (!/^\s/.test(line)) mine = line.startsWith(`${file}(`) || !/^\S+\.ts\(/.test(line);
      if (mine) out.push(line);
    }
    return out;
  };

  test("type-checks a partner's code against the shipped declarations; a value outside the API's enum is a type error", () => {
    expect(diagnosticsOf('partner.ts')).toEqual([]);
  });

  test("the README's examples type-check against the shipped declarations (P273)", () => {
    expect(readmeBlocks().length).toBeGreaterThanOrEqual(2);
    expect(diagnosticsOf('readme.ts')).toEqual([]);
  });
});

describe('the transport: what is retried', () => {
  const scripted = (statuses: (number | Error)[], headers: Record<string, string> = {}) => {
    const seen: Request[] = [];
    const fetch = (request: Request) => {
      seen.push(request);
      const next = statuses.shift() ?? 200;
      if (next instanceof Error) return Promise.reject(next);
      return Promise.resolve(new Response('{}', { status: next, headers }));
    };
    return { seen, fetch };
  };
  const transport = (fetch: (r: Request) => Promise<Response>) =>
    createTransport({ apiKey: 'k', retry: { ...DEFAULT_RETRY, baseDelayMs: 1 }, fetch, newIdempotencyKey: () => 'generated-key' });

  test('a POST gets one Idempotency-Key for all its attempts, the same body each time, and is retried on 5xx, 409 and network errors', async () => {
    const { seen, fetch } = scripted([503, 409, new TypeError('fetch failed'), 201]);
    const response = await transport(fetch)(new Request('http://api.test/applications/', { method: 'POST', body: '{"a":1}' }));
    expect(response.status).toBe(201);
    expect(seen.map((r) => r.headers.get('idempotency-key'))).toEqual(Array(4).fill('generated-key'));
    expect(await Promise.all(seen.map((r) => r.text()))).toEqual(Array(4).fill('{"a":1}'));
    expect(seen.every((r) => r.headers.get('authorization') === 'Bearer k')).toBe(true);
  });

  test("a caller's Idempotency-Key is kept; retries stop after maxRetries with the last response", async () => {
    const { seen, fetch } = scripted([500, 500, 500, 500, 500, 500]);
    const response = await transport(fetch)(
      new Request('http://api.test/applications/', { method: 'POST', body: '{}', headers: { 'Idempotency-Key': 'mine' } }),
    );
    expect(response.status).toBe(500);
    expect(seen).toHaveLength(DEFAULT_RETRY.maxRetries + 1);
    expect(new Set(seen.map((r) => r.headers.get('idempotency-key')))).toEqual(new Set(['mine']));
  });

  test('4xx other than 429 is not retried; a 409 without an Idempotency-Key is not either', async () => {
    for (const [status, method] of [
      [400, 'GET'],
      [404, 'GET'],
      [422, 'POST'],
      [409, 'PATCH'],
    ] as const) {
      const { seen, fetch } = scripted([status]);
      const response = await transport(fetch)(new Request('http://api.test/x', { method, body: method === 'GET' ? undefined : '{}' }));
      expect([status, method, response.status, seen.length]).toEqual([status, method, status, 1]);
    }
  });

  test('Retry-After is waited for, up to maxDelayMs; a longer one is handed back at once', async () => {
    const quick = scripted([429], { 'Retry-After': '0' });
    expect((await transport(quick.fetch)(new Request('http://api.test/jobs'))).status).toBe(200);
    expect(quick.seen).toHaveLength(2);
    const slow = scripted([429], { 'Retry-After': '3600' });
    expect((await transport(slow.fetch)(new Request('http://api.test/jobs'))).status).toBe(429);
    expect(slow.seen).toHaveLength(1);
    expect(retryAfterSeconds('120')).toBe(120);
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(29);
    expect(retryAfterSeconds('soon')).toBeUndefined();
  });
});
