/**
 * The container ingest (issue 15) as the image runs it: the Dockerfile read statically (there is no Docker
 * engine here), its esbuild command run as written, and the resulting bundle started as a process against the
 * local emulators, the way ECS starts it against AWS. Requests go through real HTTP into that process.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { importJobs } from '#jobs/job-store.js';
import { allRoutes } from '#http/routes.js';
import { projectRoot } from '../../lib/project-paths.js';
import { ROUTE_HANDLERS } from '../../container/handlers.js';
import { requiredEnvironment } from '../../container/ingest.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { objectBytes, objectKeys } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** The Dockerfile's instructions, continuation lines joined, comments dropped, each with its build stage. */
function dockerfileInstructions(): Instruction[] {
  const text = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8').replace(/\\\r?\n/g, ' ');
  let stage = -1;
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
    .map((line) => {
      const [, keyword, args] = /^(\S+)\s+(.*)$/.exec(line)!;
      if (keyword.toUpperCase() === 'FROM') stage++;
      return { keyword: keyword.toUpperCase(), args: args.trim(), stage };
    });
}

/** Shell words of a RUN line (plain and double-quoted words; the Dockerfile uses nothing else). */
function shellWords(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"|(\S+)/g)].map((m) => (m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]));
}

const instructions = dockerfileInstructions();
const lastStage = Math.max(...instructions.map((i) => i.stage));
const final = instructions.filter((i) => i.stage === lastStage);

describe('Dockerfile (read statically: no Docker engine here)', () => {
  test('multi-stage, every stage from the official Node 24 image', () => {
    const froms = instructions.filter((i) => i.keyword === 'FROM');
    expect(froms.length).toBeGreaterThanOrEqual(2);
    for (const from of froms) expect(from.args).toMatch(/^node:24(-[a-z0-9-]+)?(\s+AS\s+\w+)?$/i);
  });

  test('the image runs as a non-root user, with a HEALTHCHECK on /health and the entry point bundle', () => {
    const user = final.filter((i) => i.keyword === 'USER').at(-1);
    expect(user?.args).toBeDefined();
    expect(user!.args).not.toMatch(/^(root|0)(:|$)/);
    const healthcheck = final.find((i) => i.keyword === 'HEALTHCHECK');
    expect(healthcheck?.args).toMatch(/\/health/);
    expect(final.find((i) => i.keyword === 'ENTRYPOINT')?.args).toBe('["node", "server.mjs"]');
    expect(final.find((i) => i.keyword === 'CMD')?.args).toBe('["ingest"]');
    // The build stage's bundle is all the final image copies.
    expect(final.filter((i) => i.keyword === 'COPY').map((i) => i.args)).toEqual(['--from=build --chown=root:root /src/dist/ ./']);
  });

  test('every file the build copies exists, and .dockerignore lets it through', () => {
    const copies = instructions.filter((i) => i.keyword === 'COPY' && !i.args.startsWith('--from'));
    const sources = copies.flatMap((i) => i.args.split(/\s+/).slice(0, -1));
    expect(sources).toEqual(expect.arrayContaining(['container', 'functions', 'shared', 'local/http-adapter.ts']));
    const ignore = readFileSync(join(projectRoot, '.dockerignore'), 'utf8')
      .split('\n')
      .map((l) => l.trim())
      .filter((l) => l && !l.startsWith('#'));
    expect(ignore[0]).toBe('*');
    for (const source of sources) {
      expect(existsSync(join(projectRoot, source))).toBe(true);
      expect(ignore).toContain(`!${source.replace(/\/$/, '')}`);
    }
    expect(existsSync(join(projectRoot, 'container', 'server.ts'))).toBe(true);
  });
});

/** The esbuild command of the Dockerfile's RUN line, as written, with the bundle written to `outdir`. */
function buildLikeTheDockerfile(outdir: string): string {
  const run = instructions.find((i) => i.keyword === 'RUN' && i.args.includes('esbuild'));
  expect(run).toBeDefined();
  const words = shellWords(run!.args);
  expect(words.slice(0, 2)).toEqual(['node_modules/.bin/esbuild', 'container/server.ts']);
  const outfile = join(outdir, 'server.mjs');
  const args = words.slice(1).map((word) => (word.startsWith('--outfile=') ? `--outfile=${outfile}` : word));
  execFileSync(join(projectRoot, words[0]), args, { cwd: projectRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  // And the build stage's files copied into dist/ beside the bundle (the API reference page), as the COPY lines say.
  for (const copy of instructions.filter((i) => i.keyword === 'COPY' && i.stage === 0)) {
    const [from, to] = shellWords(copy.args);
    if (to?.startsWith('./dist/')) copyFileSync(join(projectRoot, from), join(outdir, to.slice('./dist/'.length)));
  }
  return outfile;
}

interface Started {
  url: string;
  child: ChildProcess;
  output: () => string;
}

function startBundle(bundle: string, mode: string, env: NodeJS.ProcessEnv): Promise<Started> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bundle, mode], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`no 'listening' line: ${out}`)), 20_000);
    const onData = (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n').find((l) => l.includes('"listening"'));
      if (!line) return;
      clearTimeout(timer);
      const { port } = JSON.parse(line) as { port: number };
      resolve({ url: `http://127.0.0.1:${port}`, child, output: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited with ${code}: ${out}`));
    });
  });
}

function runToExit(bundle: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bundle, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => resolve({ code, output }));
  });
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  await new Promise<void>((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

let outdir: string;
let bundle: string;
let api: TestRuntime;
let env: NodeJS.ProcessEnv;
let ingest: Started;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
let stranger: Awaited<ReturnType<typeof aPartner>>;
let strangerCompany: Awaited<ReturnType<typeof aCompany>>;
let jobId: number;

const PDF = Buffer.from('%PDF-1.7\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n');

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'his-container-'));
  bundle = buildLikeTheDockerfile(outdir);
  // The emulators (and the in-process runtime, used here only to read job ids) stand in for AWS.
  api = await startTestRuntime();
  const { FAKE_NOW: _fakeNow, CRASH_POINTS: _crashPoints, ...parent } = process.env;
  env = { ...parent, ...api.runtime.emulators.env, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'INFO' };
  partner = await aPartner();
  company = await aCompany(partner.id);
  stranger = await aPartner();
  strangerCompany = await aCompany(stranger.id);
  await importJobs(company.id, [{ external_id: 'C-1', title: 'Container job' }]);
  jobId = (await api.get('/jobs?external_id=C-1', { key: partner.key, companyId: company.id })).body.results[0].id;
  ingest = await startBundle(bundle, 'ingest', env);
});

afterAll(async () => {
  if (ingest) await stopChild(ingest.child);
  await api?.stop();
  rmSync(outdir, { recursive: true, force: true });
});

async function call(
  base: string,
  method: string,
  path: string,
  o: { key?: string; companyId?: number; body?: string | Buffer; type?: string } = {},
) {
  const headers: Record<string, string> = {};
  if (o.key) headers.Authorization = `Bearer ${o.key}`;
  if (o.companyId !== undefined) headers['Company-Id'] = String(o.companyId);
  if (o.body !== undefined) headers['Content-Type'] = o.type ?? 'application/json';
  const response = await fetch(`${base}${path}`, { method, headers, body: o.body });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
}

const candidate = { email: 'grace@example.com', first_name: 'Grace', last_name: 'Hopper' };

describe('the bundle built by the Dockerfile command', () => {
  test('holds the handlers and the authorizer but none of the local emulators', () => {
    const code = readFileSync(bundle, 'utf8');
    expect(statSync(bundle).size).toBeGreaterThan(100_000);
    for (const emulator of ['dynalite', 'fauxqs', 'classic-level']) expect(code).not.toContain(`node_modules/${emulator}/`);
    expect(code).not.toContain('local-development-cursor-secret-file');
  });

  test('every handler module of the route table, pages and apply endpoint included, is bundled (a static import each)', () => {
    expect(Object.keys(ROUTE_HANDLERS).sort()).toEqual([...new Set(allRoutes.map((r) => r.handler))].sort());
  });
});

describe('ingest mode (the default), as a process against the emulators', () => {
  test('GET /health answers 200 without authentication', async () => {
    const res = await call(ingest.url, 'GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok', mode: 'ingest' });
  });

  test('authentication is still enforced: no key 401, an unknown key 401, both in the D2 shape', async () => {
    const none = await call(ingest.url, 'POST', '/applications/', { companyId: company.id, body: '{}' });
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('not_authenticated');
    const unknown = await call(ingest.url, 'GET', '/applications/', { key: 'not-a-key', companyId: company.id });
    expect(unknown.status).toBe(401);
  });

  test('a 26 MB JSON create (about 20 MB of files) succeeds end to end and stores the files', async () => {
    const file = Buffer.alloc(10_000_000, 0x42);
    PDF.copy(file, 0);
    const data = file.toString('base64');
    const text = JSON.stringify({
      job: jobId,
      candidate,
      attachments: [1, 2].map((n) => ({ type: 'work_sample', name: `w${n}.pdf`, content_type: 'application/pdf', data })),
    });
    expect(text.length).toBeGreaterThan(26_000_000);
    expect(text.length).toBeLessThan(27_500_000);
    const res = await call(ingest.url, 'POST', '/applications/', { key: partner.key, companyId: company.id, body: text });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBeTruthy();
    const keys = await objectKeys(`companies/${company.id}/applications/${res.body.id}/`);
    expect(keys).toHaveLength(2);
    expect((await objectBytes(keys[0])).equals(file)).toBe(true);

    // Every method of the applications paths is served here: the record reads back through the container.
    const read = await call(ingest.url, 'GET', `/applications/${res.body.id}`, { key: partner.key, companyId: company.id });
    expect(read.status).toBe(200);
    expect(read.body.id).toBe(res.body.id);
    const list = await call(ingest.url, 'GET', '/applications/', { key: partner.key, companyId: company.id });
    expect(list.status).toBe(200);
    expect(list.body.results.map((a: { id: number }) => a.id)).toContain(res.body.id);

    // Another partner's company cannot see it: 404, not 403.
    const foreign = await call(ingest.url, 'GET', `/applications/${res.body.id}`, { key: stranger.key, companyId: strangerCompany.id });
    expect(foreign.status).toBe(404);
    // Nor by naming the owner's company with its own key.
    const named = await call(ingest.url, 'GET', `/applications/${res.body.id}`, { key: stranger.key, companyId: company.id });
    expect([403, 404]).toContain(named.status);
    expect(named.body.code).not.toBe('internal_error');
  });

  test('a multipart create with a file part succeeds', async () => {
    const boundary = 'container-test-boundary';
    const parts = [
      `--${boundary}\r\nContent-Disposition: form-data; name="job"\r\n\r\n${jobId}\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="candidate[email]"\r\n\r\nmp@example.com\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="candidate[first_name]"\r\n\r\nMulti\r\n`,
      `--${boundary}\r\nContent-Disposition: form-data; name="candidate[last_name]"\r\n\r\nPart\r\n`,
    ];
    const file = Buffer.alloc(5_000_000, 0x43);
    PDF.copy(file, 0);
    const body = Buffer.concat([
      Buffer.from(parts.join('')),
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="cv"; filename="cv.pdf"\r\nContent-Type: application/pdf\r\n\r\n`),
      file,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    ]);
    const res = await call(ingest.url, 'POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body,
      type: `multipart/form-data; boundary=${boundary}`,
    });
    expect(res.status).toBe(201);
    const keys = await objectKeys(`companies/${company.id}/applications/${res.body.id}/`);
    expect(keys).toHaveLength(1);
    expect((await objectBytes(keys[0])).equals(file)).toBe(true);
  });

  test('a body of 27.5 MB or more is a 413 in the D2 shape', async () => {
    const res = await call(ingest.url, 'POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body: Buffer.alloc(27_500_000, 0x20),
    });
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  test('paths other than /applications* are not served in ingest mode (404), even with a valid key', async () => {
    for (const path of ['/jobs', '/companies/', '/applicationsx']) {
      const res = await call(ingest.url, 'GET', path, { key: partner.key, companyId: company.id });
      expect({ path, status: res.status, code: res.body.code }).toEqual({ path, status: 404, code: 'not_found' });
    }
  });
});

describe('serve mode and start-up checks', () => {
  test('serve runs the whole API', async () => {
    const serve = await startBundle(bundle, 'serve', env);
    try {
      expect((await call(serve.url, 'GET', '/health')).body).toEqual({ status: 'ok', mode: 'serve' });
      const jobs = await call(serve.url, 'GET', '/jobs', { key: partner.key, companyId: company.id });
      expect(jobs.status).toBe(200);
      expect(jobs.body.results.map((j: { id: number }) => j.id)).toContain(jobId);
      expect((await call(serve.url, 'GET', '/jobs')).status).toBe(401);
      // The public pages too (a magic link may point here): a token no link has is the page's "not valid" page,
      // and the access log names the route, never the token.
      const token = 'Zq3vN8kT0pL5wX2yB7cD9fG1hJ4mR6sU8aE0iO2uY4t';
      const connect = await fetch(`${serve.url}/connect/${token}`);
      expect([connect.status, connect.headers.get('content-type')]).toEqual([404, expect.stringContaining('text/html')]);
      expect(await connect.text()).toContain('This link is no longer valid');
      const docs = await fetch(`${serve.url}/docs`);
      expect([docs.status, docs.headers.get('content-type')]).toEqual([200, expect.stringContaining('text/html')]);
      await fetch(`${serve.url}/connect/${token}/more`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const logged = serve
        .output()
        .split('\n')
        .filter((line) => line.includes('"request"'))
        .map((line) => JSON.parse(line) as { path: string; status: number })
        .map(({ path, status }) => [path, status]);
      expect(logged).toEqual(
        expect.arrayContaining([
          ['/connect/{token}', 404],
          ['/docs', 200],
          ['/connect/…', 404],
        ]),
      );
      expect(serve.output()).not.toContain(token);
    } finally {
      await stopChild(serve.child);
    }
  });

  test('the variables each mode needs come from its routes’ declared access', () => {
    expect(requiredEnvironment('ingest')).toEqual(['BUCKET_NAME', 'CURSOR_SECRET', 'SYNC_QUEUE_URL', 'TABLE_NAME']);
    expect(requiredEnvironment('serve')).toEqual(expect.arrayContaining(requiredEnvironment('ingest')));
  });

  test('a missing variable, a local-only switch or an unknown mode stops the process before it listens', async () => {
    const { CURSOR_SECRET: _secret, ...withoutSecret } = env;
    const missing = await runToExit(bundle, ['ingest'], withoutSecret);
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/CURSOR_SECRET/);
    const faked = await runToExit(bundle, ['ingest'], { ...env, FAKE_NOW: '2026-01-01T00:00:00Z' });
    expect(faked.code).toBe(2);
    expect(faked.output).toMatch(/FAKE_NOW/);
    const unknown = await runToExit(bundle, ['everything'], env);
    expect(unknown.code).toBe(2);
  });
});
