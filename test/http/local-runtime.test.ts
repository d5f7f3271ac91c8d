/**
 * The local runtime as `npm start` runs it: demo seeding on an empty data directory only, data kept across
 * restarts, the background poller taking a demo application to SUCCESS, and a clean exit on SIGTERM and on Ctrl-C.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SHARED_DYNAMODB_VARIABLE } from '../../local/emulators.js';
import { startRuntime } from '../../local/runtime.js';
import { contractFetch } from '../helpers/runtime.js';

const dataDir = mkdtempSync(join(tmpdir(), 'his-runtime-'));
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

async function get(url: string, key: string, companyId?: number) {
  const res = await contractFetch(url, {
    headers: { Authorization: `Bearer ${key}`, ...(companyId ? { 'Company-Id': String(companyId) } : {}) },
  });
  return { status: res.status, body: (await res.json()) as any };
}

test('seeds the demo once, keeps data across restarts, and syncs a demo application to SUCCESS in the background', async () => {
  const first = await startRuntime({ dataDir, port: 0, seed: true, schedules: false, poller: true });
  const demo = first.demo!;
  try {
    expect(demo).toMatchObject({
      partnerId: expect.any(Number),
      companyId: expect.any(Number),
      partnerKey: expect.stringMatching(/^his_/),
    });
    const jobs = await get(`${first.url}/jobs`, demo.partnerKey, demo.companyId);
    expect(jobs.body.count).toBeGreaterThanOrEqual(3);
    const job = jobs.body.results.find((j: { external_id: string }) => !j.external_id.startsWith('closed-'));
    const created = await contractFetch(`${first.url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demo.companyKey}`, 'Company-Id': String(demo.companyId), 'Content-Type': 'application/json' },
      body: JSON.stringify({ job: job.id, candidate: { email: 'demo@example.com', full_name: 'Demo Candidate' } }),
    });
    const application = (await created.json()) as { id: number };
    expect(created.status).toBe(201);
    let status = 'NOTSENT';
    for (let i = 0; i < 100 && status === 'NOTSENT'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await get(`${first.url}/applications/${application.id}`, demo.partnerKey, demo.companyId)).body.sync_status;
    }
    expect(status).toBe('SUCCESS');
  } finally {
    await first.stop();
  }
  expect(existsSync(join(dataDir, 'runtime.json'))).toBe(false);

  const second = await startRuntime({ dataDir, port: 0, seed: true, schedules: false, poller: false });
  try {
    expect(second.demo).toEqual(demo);
    const companies = await get(`${second.url}/companies/`, demo.partnerKey);
    expect(companies.body.count).toBe(1);
    const applications = await get(`${second.url}/applications/`, demo.partnerKey, demo.companyId);
    expect(applications.body.results.map((a: { sync_status: string }) => a.sync_status)).toEqual(['SUCCESS']);
    // The scheduled job import (D14) of the demo company: the sandbox publishes the demo jobs, unchanged,
    // and each of them arrives on the new run.
    const runIds = async () =>
      new Set(
        (await get(`${second.url}/jobs?status=active`, demo.partnerKey, demo.companyId)).body.results.map(
          (j: { run_id: string }) => j.run_id,
        ),
      );
    const seeded = await runIds();
    expect(await second.scheduler.run('JobImportScheduler')).toEqual({ queued: 1 });
    expect(await second.importPoller.drain(10_000)).toBe(1);
    const imported = await runIds();
    expect(imported.size).toBe(1);
    expect(seeded.has([...imported][0])).toBe(false);
    expect((await get(`${second.url}/jobs?status=active`, demo.partnerKey, demo.companyId)).body.count).toBe(4);
  } finally {
    await second.stop();
  }
});

/** The server command of package.json's `start` script (after its prerequisites check), as node's arguments. */
function startScriptArgs(): string[] {
  const script: string = JSON.parse(readFileSync('package.json', 'utf8')).scripts.start;
  const command = script.split('&&').at(-1)!.trim().split(/\s+/);
  expect(command.slice(0, 1)).toEqual(['node']);
  return command.slice(1);
}

/** `npm start` as a process on a free port with its own data directory; resolves once its banner is out. */
async function npmStart(dir: string, env: Record<string, string> = {}) {
  const child = spawn(process.execPath, startScriptArgs(), {
    env: { ...process.env, DATA_DIR: dir, PORT: '0', LOG_LEVEL: 'ERROR', PUBLIC_BASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    // A process group of its own, as a terminal gives a foreground command: a signal to the group reaches every
    // process `npm start` started, as Ctrl-C does.
    detached: true,
  });
  let output = '';
  let errors = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (errors += chunk));
  for (let i = 0; i < 900 && !output.includes('curl'); i++) await new Promise((r) => setTimeout(r, 100));
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
  return { child, output, url, logs: () => output + errors };
}

/** The admin tool against the running `npm start` of `dir`, as an operator runs it; its printed object. */
function admin(dir: string, ...args: string[]): Promise<any> {
  const env = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dir, LOG_LEVEL: 'SILENT' };
  return new Promise((resolve, reject) =>
    execFile(process.execPath, [join(process.cwd(), 'bin', 'hiring-admin.js'), ...args], { env }, (error, stdout, stderr) =>
      error ? reject(new Error(`hiring-admin ${args[0]} ${args[1]}: ${stderr}`)) : resolve(JSON.parse(stdout)),
    ),
  );
}

/** Stops a started `npm start` with `signal()`: exit code 0, its runtime.json gone, and nothing logged at LOG_LEVEL=ERROR. */
async function expectCleanStop(started: { child: ChildProcess; logs(): string }, dir: string, signal: () => void) {
  const exit = new Promise<number | null>((resolve) => started.child.once('exit', resolve));
  signal();
  expect(await exit).toBe(0);
  expect(existsSync(join(dir, 'runtime.json'))).toBe(false);
  expect(
    started
      .logs()
      .split('\n')
      .filter((line) => line.includes('"level"')),
  ).toEqual([]);
}

test('npm start prints the base URL and a curl, and exits cleanly on SIGTERM', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-start-'));
  const { child, output, url, logs } = await npmStart(dir);
  try {
    expect(url).toBeDefined();
    expect(output).toMatch(/curl -s -H "Authorization: Bearer \$KEY" -H "Company-Id: \d+" http:\/\/127\.0\.0\.1:\d+\/jobs/);
    const key = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')).partnerKey;
    // The banner points at demo.json for the key and never prints a key itself.
    expect(output).toContain(`require('${dir}/demo.json').partnerKey`);
    expect(output).not.toContain(key);
    expect((await get(`${url}/companies/`, key)).status).toBe(200);
    await expectCleanStop({ child, logs }, dir, () => child.kill('SIGTERM'));
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Ctrl-C on npm start (SIGINT to its whole process group) stops it with nothing logged as failed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-ctrl-c-'));
  // Its own DynamoDB Local's JVM, as `npm start` outside the tests has, not the test run's shared one.
  const { child, url, logs } = await npmStart(dir, { [SHARED_DYNAMODB_VARIABLE]: '' });
  try {
    expect(url).toBeDefined();
    // The stream relay polls DynamoDB Local's stream every 200 ms while idle: a second of polls before the signal.
    await new Promise((r) => setTimeout(r, 1000));
    await expectCleanStop({ child, logs }, dir, () => process.kill(-child.pid!, 'SIGINT'));
  } finally {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test('under npm start without PUBLIC_BASE_URL, the external-apply follow-up e-mail links to the server itself (issue 42 item 6)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-start-links-'));
  const { child, url } = await npmStart(dir);
  try {
    expect(url).toBeDefined();
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')) as { partnerId: number; partnerKey: string };
    const company = await admin(
      dir,
      'company',
      'create',
      '--partner',
      String(demo.partnerId),
      '--name',
      'Links GmbH',
      '--entitle',
      'external_apply',
    );
    writeFileSync(
      join(dir, 'jobs.json'),
      JSON.stringify([{ external_id: 'L-1', title: 'Welder', application_url: 'https://careers.links.example/1' }]),
    );
    await admin(dir, 'jobs', 'import', '--company', String(company.id), '--file', join(dir, 'jobs.json'));
    const job = (await get(`${url}/jobs?external_id=L-1`, demo.partnerKey, company.id)).body.results[0].id;
    const created = await contractFetch(`${url}/applications/`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${demo.partnerKey}`, 'Company-Id': String(company.id), 'Content-Type': 'application/json' },
      body: JSON.stringify({ job, candidate: { email: 'links@example.com', full_name: 'Link Tester' } }),
    });
    expect(created.status).toBe(201);
    const outbox = join(dir, 'outbox');
    let mails: string[] = [];
    for (let i = 0; i < 200 && mails.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      mails = existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : [];
    }
    expect(mails).toHaveLength(1);
    // The body after the headers, Base64 (email.ts).
    const eml = readFileSync(join(outbox, mails[0]), 'utf8');
    const text = Buffer.from(eml.slice(eml.indexOf('\r\n\r\n') + 4), 'base64').toString('utf8');
    expect(text).toMatch(new RegExp(`${url!.replace(/[.:/]/g, '\\$&')}/r/[A-Za-z0-9_-]+`));
  } finally {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an application created just before a kill -9 of npm start reaches SUCCESS after the restart (issue 42 item 5)', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-kill-'));
  // Without workers, the application's sync message and its attachment wait in fauxqs (SQLite and files under DATA_DIR).
  const first = await npmStart(dir, { WORKERS: '0' });
  let second: Awaited<ReturnType<typeof npmStart>> | undefined;
  try {
    const demo = JSON.parse(readFileSync(join(dir, 'demo.json'), 'utf8')) as { partnerKey: string; companyId: number };
    const headers = {
      Authorization: `Bearer ${demo.partnerKey}`,
      'Company-Id': String(demo.companyId),
      'Content-Type': 'application/json',
    };
    // A demo job the sandbox takes (one whose external id starts with closed- it calls unpublished).
    const jobs = (await get(`${first.url}/jobs?status=active&page_size=10`, demo.partnerKey, demo.companyId)).body.results;
    const job = jobs.find((j: { external_id: string }) => !j.external_id.startsWith('closed-')).id;
    const pdf = Buffer.from('%PDF-1.5\nkill test\n%%EOF').toString('base64');
    const created = await contractFetch(`${first.url}/applications/`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        job,
        candidate: { email: 'killed@example.com', full_name: 'Kill Nine' },
        attachments: [{ type: 'cv', name: 'cv.pdf', content_type: 'application/pdf', data: pdf }],
      }),
    });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: number };
    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    second = await npmStart(dir);
    expect(second.url).toBeDefined();
    let application: { sync_status?: string } = {};
    for (let i = 0; i < 300 && application.sync_status !== 'SUCCESS'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      application = (await get(`${second.url}/applications/${id}`, demo.partnerKey, demo.companyId)).body;
    }
    expect(application).toMatchObject({ id, sync_status: 'SUCCESS', failure_error: null });
  } finally {
    first.child.kill('SIGKILL');
    second?.child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
});

test('without seeding (what DEMO=0 selects) the data directory gets no demo', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-nodemo-'));
  const runtime = await startRuntime({ dataDir: dir, port: 0, seed: false, schedules: false, poller: false });
  try {
    expect(runtime.demo).toBeUndefined();
    expect(existsSync(join(dir, 'demo.json'))).toBe(false);
  } finally {
    await runtime.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('items past their TTL are reaped locally (DynamoDB Local does not expire items of a table with indexes), fresh ones kept', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'his-ttl-'));
  const runtime = await startRuntime({ dataDir: dir, port: 0, seed: false, schedules: false, poller: false, dropTable: true });
  try {
    const { PutCommand, GetCommand } = await import('@aws-sdk/lib-dynamodb');
    const { config, db } = await import('#platform/clients.js');
    const { expiringAt } = await import('#platform/keys.js');
    const now = Math.floor(Date.now() / 1000);
    const get = async (pk: string, sk: string) =>
      (await db().send(new GetCommand({ TableName: config().tableName, Key: { PK: pk, SK: sk }, ConsistentRead: true }))).Item;
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: 'TTL#old', SK: 'X', ...expiringAt(now - 10) } }));
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: 'TTL#new', SK: 'X', ...expiringAt(now + 3600) } }));
    // Powertools' idempotency records carry the same TTL attribute.
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: 'IDEMPOTENCY', SK: 'old', expires_at: now - 10 } }));
    const { reapExpiredItems } = await import('../../local/emulators.js');
    expect(await reapExpiredItems(config().tableName)).toBe(2);
    expect(await get('TTL#old', 'X')).toBeUndefined();
    expect(await get('IDEMPOTENCY', 'old')).toBeUndefined();
    expect(await get('TTL#new', 'X')).toMatchObject({ PK: 'TTL#new' });

    // The timer: a pass a short interval after the previous one has finished, none after stop().
    const { startTtlReaper } = await import('../../local/emulators.js');
    const reaper = startTtlReaper(config().tableName, 20);
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: 'TTL#timer', SK: 'X', ...expiringAt(now - 10) } }));
    for (let i = 0; i < 100 && (await get('TTL#timer', 'X')); i++) await new Promise((r) => setTimeout(r, 50));
    expect(await get('TTL#timer', 'X')).toBeUndefined();
    reaper.stop();
    await new Promise((r) => setTimeout(r, 200)); // a pass already under way ends
    await db().send(new PutCommand({ TableName: config().tableName, Item: { PK: 'TTL#stopped', SK: 'X', ...expiringAt(now - 10) } }));
    await new Promise((r) => setTimeout(r, 300));
    expect(await get('TTL#stopped', 'X')).toMatchObject({ PK: 'TTL#stopped' });
  } finally {
    await runtime.stop();
    rmSync(dir, { recursive: true, force: true });
  }
});
