/**
 * The admin tool as operators run it: the real bin shim in a child process, against the runtime of this
 * file (mode 1: it finds runtime.json in the data directory) and, once, with no server (mode 3).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { claimJobImportRun, getCompanyRecord, releaseJobImportRun } from '#companies/company-store.js';
import { importJobFeed } from '#delivery/job-import.js';
import { importJobs } from '#jobs/job-store.js';
import { itemBytes } from '#platform/item-size.js';
import { queryAll } from '#platform/batch.js';
import { keys } from '#platform/keys.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { ADMIN_SHIM, adminCli, cleanEnv } from '../helpers/admin-cli.js';

const SHIM = ADMIN_SHIM;
const cli = adminCli;

/**
 * The tool on a terminal: run under `script` (util-linux), which gives it a pseudo-terminal for stdin, stdout and
 * stderr; returns everything the terminal showed (CRLF line ends, escape sequences included).
 */
function onTerminal(args: string[], dataDir: string): Promise<{ code: number; shown: string }> {
  const quote = (arg: string) => `'${arg.replace(/'/g, `'\\''`)}'`;
  const command = [process.execPath, SHIM, ...args].map(quote).join(' ');
  return new Promise((resolve) => {
    execFile('script', ['-q', '-e', '-c', command, '/dev/null'], { env: cleanEnv(dataDir), cwd: process.cwd() }, (error, stdout) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, shown: stdout });
    });
  });
}

let api: TestRuntime;
let dataDir: string;
let work: string;

beforeAll(async () => {
  api = await startTestRuntime();
  dataDir = api.runtime.dataDir;
  work = mkdtempSync(join(tmpdir(), 'his-admin-'));
});
afterAll(async () => {
  await api.stop();
  rmSync(work, { recursive: true, force: true });
});

function jobsFile(name: string, jobs: unknown): string {
  const file = join(work, name);
  writeFileSync(file, JSON.stringify(jobs));
  return file;
}

const JOBS = [
  { external_id: 'a-1', title: 'Backend Engineer', remote: 'remote', city: 'Berlin', country: 'DE' },
  { external_id: 'b-2', title: 'Designer', remote: 'hybrid', city: 'Hamburg', country: 'DE' },
  { external_id: 'c-3', title: 'Recruiter', remote: 'on-site', city: 'Munich', country: 'DE' },
];

describe('hiring-admin against a running server (runtime.json)', () => {
  let partner: { id: number; key: string };
  let company: any;
  let companyKey: { id: number; key: string };
  let jobIds: Record<string, number>;

  test('partner create, key create --partner, company create: the company is visible through the API', async () => {
    const created = await cli(['partner', 'create', '--name', 'Admin Board', '--kind', 'agency'], dataDir);
    expect(created.code).toBe(0);
    expect(created.stderr).toBe('');
    expect(created.json).toEqual({ id: expect.any(Number), name: 'Admin Board', kind: 'agency', created_at: expect.any(String) });

    const key = await cli(['key', 'create', '--partner', String(created.json.id)], dataDir);
    expect(key.code).toBe(0);
    expect(key.json).toEqual({ id: expect.any(Number), key: expect.stringMatching(/^his_/), scope: 'partner' });
    partner = { id: created.json.id, key: key.json.key };

    const made = await cli(
      [
        'company',
        'create',
        '--partner',
        String(partner.id),
        '--name',
        'Ädmin Company GmbH',
        '--ats',
        'sandbox',
        '--partner-company-id',
        'ext-42',
        '--entitle',
        'job_sync, candidate_sync',
        '--is-test',
        '--contact-email',
        'hr@admin.example',
      ],
      dataDir,
    );
    expect(made.code).toBe(0);
    company = made.json;
    expect(company).toMatchObject({
      id: expect.any(Number),
      name: 'Ädmin Company GmbH',
      slug: 'admin-company-gmbh',
      ats: 'sandbox',
      partner: partner.id,
      partner_company_id: 'ext-42',
      is_test: true,
      status: 'active',
      contact_email: 'hr@admin.example',
      job_sync_active: true,
      candidate_sync_active: true,
    });

    const listed = await api.get('/companies/', { key: partner.key });
    expect(listed.status).toBe(200);
    expect(listed.body.count).toBe(1);
    // The tool prints the Company object exactly as the API shows it.
    expect(listed.body.results[0]).toEqual(company);
  });

  test('key create --company gives a key that works for that company', async () => {
    const key = await cli(['key', 'create', '--company', String(company.id)], dataDir);
    expect(key.code).toBe(0);
    expect(key.json).toEqual({ id: expect.any(Number), key: expect.stringMatching(/^his_/), scope: 'company' });
    companyKey = key.json;
    expect((await api.get('/jobs', { key: companyKey.key, companyId: company.id })).status).toBe(200);
  });

  test('jobs import: first run creates, the same file again leaves everything unchanged', async () => {
    const file = jobsFile('jobs-1.json', JOBS);
    const first = await cli(['jobs', 'import', '--company', String(company.id), '--file', file], dataDir);
    expect(first.code).toBe(0);
    expect(first.json).toEqual({ run_id: expect.stringMatching(/^[0-9a-f-]{36}$/), created: 3, updated: 0, unchanged: 0, archived: 0 });
    // Piped: no progress bar, nothing on stderr, stdout exactly the document (P221).
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`${JSON.stringify(first.json, null, 2)}\n`);

    const again = await cli(['jobs', 'import', '--company', String(company.id), '--file', file], dataDir);
    expect(again.code).toBe(0);
    expect(again.json).toEqual({ run_id: expect.any(String), created: 0, updated: 0, unchanged: 3, archived: 0 });
    expect(again.json.run_id).not.toBe(first.json.run_id);

    const list = await api.get('/jobs', { key: partner.key, companyId: company.id });
    expect(list.body.count).toBe(3);
    jobIds = Object.fromEntries(list.body.results.map((j: any) => [j.external_id, j.id]));
    for (const j of list.body.results) expect(j.run_id).toBe(again.json.run_id);
  });

  test("the README's example file (docs/examples/jobs.json) imports as it says", async () => {
    const other = await aCompany(partner.id);
    const out = await cli(['jobs', 'import', '--company', String(other.id), '--file', 'docs/examples/jobs.json'], dataDir);
    expect(out.code).toBe(0);
    expect(out.json).toMatchObject({ created: 2, updated: 0, unchanged: 0, archived: 0 });
    const list = await api.get('/jobs', { key: partner.key, companyId: other.id });
    expect(list.body.results.map((j: { external_id: string }) => j.external_id).sort()).toEqual(['ACME-1', 'ACME-2']);
  });

  test('jobs import on a terminal shows a progress bar, then the same JSON document (P221)', async () => {
    const file = jobsFile('jobs-tty.json', [{ external_id: 'tty-1', title: 'Terminal Job' }]);
    const other = await aCompany(partner.id);
    const { code, shown } = await onTerminal(['jobs', 'import', '--company', String(other.id), '--file', file], dataDir);
    expect(code).toBe(0);
    expect(shown).toContain('Writing jobs [');
    expect(shown).toContain('0/1 (0%)');
    const document = shown.slice(shown.lastIndexOf('{\r\n')).replace(/\r\n/g, '\n');
    expect(JSON.parse(document)).toEqual({ run_id: expect.any(String), created: 1, updated: 0, unchanged: 0, archived: 0 });
  });

  test('jobs import of a changed file: one updated, one unchanged, the missing one archived', async () => {
    const read = async (externalId: string) =>
      (await api.get(`/jobs/${jobIds[externalId]}`, { key: partner.key, companyId: company.id })).body;
    const before = Object.fromEntries(await Promise.all(JOBS.map(async (j) => [j.external_id, await read(j.external_id)] as const)));

    const changed = jobsFile('jobs-2.json', [JOBS[0], { ...JOBS[1], title: 'Senior Designer' }]);
    const run = await cli(['jobs', 'import', '--company', String(company.id), '--file', changed], dataDir);
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ run_id: expect.any(String), created: 0, updated: 1, unchanged: 1, archived: 1 });

    const [a, b, c] = await Promise.all(['a-1', 'b-2', 'c-3'].map(read));
    expect(a.last_content_update_at).toBe(before['a-1'].last_content_update_at);
    expect(a.fingerprint).toBe(before['a-1'].fingerprint);
    expect(b.title).toBe('Senior Designer');
    expect(b.last_content_update_at > before['b-2'].last_content_update_at).toBe(true);
    expect(b.fingerprint).not.toBe(before['b-2'].fingerprint);
    expect(c.fingerprint).toBe(before['c-3'].fingerprint);
    expect(c.last_content_update_at).toBe(before['c-3'].last_content_update_at);
    expect(a.run_id).toBe(run.json.run_id);
    expect(b.run_id).toBe(run.json.run_id);
    expect(c.status).toBe('archived');
    // c did not arrive on this run: it keeps the run it last arrived on.
    expect(c.run_id).toBe(before['c-3'].run_id);
    expect(c.run_id).not.toBe(run.json.run_id);
    expect(a.status).toBe('active');
  });

  test('an invalid jobs file is refused whole, naming each bad field, and writes nothing', async () => {
    const bad = jobsFile('jobs-bad.json', [
      { external_id: 'new-1', title: 'Fine' },
      { external_id: 'new-2', remote: 'moon' },
      { title: 'No id' },
    ]);
    const run = await cli(['jobs', 'import', '--company', String(company.id), '--file', bad], dataDir);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.json).toEqual({
      detail: expect.any(String),
      code: 'invalid',
      errors: { '[1].remote': [expect.stringContaining('Must be one of')], '[2].external_id': ['This field is required.'] },
    });
    const list = await api.get('/jobs', { key: partner.key, companyId: company.id });
    expect(list.body.count).toBe(3);
    expect(list.body.results.map((j: any) => j.external_id).sort()).toEqual(['a-1', 'b-2', 'c-3']);
  });

  test('company set-fallback-job sets an active job; an archived one is refused', async () => {
    const [set, archived] = await Promise.all([
      cli(['company', 'set-fallback-job', String(company.id), '--job', String(jobIds['a-1'])], dataDir),
      cli(['company', 'set-fallback-job', String(company.id), '--job', String(jobIds['c-3'])], dataDir),
    ]);
    expect(archived.code).toBe(1);
    expect(archived.json).toMatchObject({ code: 'invalid', errors: { job: [expect.stringContaining('archived')] } });
    expect(set.code).toBe(0);
    expect(set.json).toMatchObject({ id: company.id, name: company.name, partner: partner.id });
    expect((await getCompanyRecord(company.id))?.fallback_job).toBe(jobIds['a-1']);
  });

  test('key revoke', async () => {
    const revoked = await cli(['key', 'revoke', String(companyKey.id)], dataDir);
    expect(revoked.code).toBe(0);
    expect(revoked.json).toEqual({ id: companyKey.id, status: 'revoked' });
    expect((await api.get('/jobs', { key: companyKey.key, companyId: company.id })).status).toBe(401);
  });

  test('channel create; bad arguments exit 2, domain errors exit 1, --help is text', async () => {
    const [channel, badArgs, noPartner, help] = await Promise.all([
      cli(['channel', 'create', '--slug', 'admin-board', '--name', 'Admin Board', '--logo', 'https://admin.example/logo.png'], dataDir),
      cli(['company', 'create', '--partner', '1.5', '--bogus'], dataDir),
      cli(['company', 'create', '--partner', '999999', '--name', 'Orphan'], dataDir),
      cli(['jobs', 'import', '--help'], dataDir),
    ]);
    expect(channel.code).toBe(0);
    expect(channel.json).toEqual({
      id: expect.any(Number),
      slug: 'admin-board',
      name: 'Admin Board',
      logo: 'https://admin.example/logo.png',
      created_at: expect.any(String),
    });

    expect(badArgs.code).toBe(2);
    expect(badArgs.stdout).toBe('');
    expect(badArgs.json).toEqual({
      detail: expect.any(String),
      code: 'invalid',
      errors: {
        '--partner': ['Must be a positive integer.'],
        '--bogus': [expect.stringContaining('Unknown option')],
        '--name': ['This option is required.'],
      },
    });

    expect(noPartner.code).toBe(1);
    expect(noPartner.json).toEqual({ detail: 'Partner 999999 does not exist.', code: 'not_found' });

    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^Usage: hiring-admin jobs import --company COMPANY_ID --file FILE \[--partial\]/);
    expect(help.stdout).toContain('runtime.json');
  });
});

/** DynamoDB's limit on an item: 400 KB. No schema or connector bounds a job's description; this does. */
const ITEM_LIMIT_BYTES = 409_600;
/** Jobs at that limit in one feed: about 4.9 MB, more than a transaction takes (4 MB). */
const LARGE_JOBS = 12;

/** Text of exactly `bytes` UTF-8 bytes, with characters of 1 to 4 bytes (the limits are in bytes, not characters). */
function textOfBytes(bytes: number, prefix: string): string {
  const unit = 'Größe für Entwicklung – 12 € 日本語 🚀 engineer. ';
  const head = prefix + unit.repeat(Math.floor((bytes - Buffer.byteLength(prefix)) / Buffer.byteLength(unit)));
  return head + 'x'.repeat(bytes - Buffer.byteLength(head));
}

describe('hiring-admin jobs import of jobs at the item size limit (P185)', () => {
  test('12 jobs whose descriptions fill their items to 400 KB: created in transactions under 4 MB, all listed, then all updated', async () => {
    const partner = await aPartner();
    const company = await aCompany(partner.id);
    const shape = (n: string, description: string) => ({
      external_id: `big-${n}`,
      title: `Large job ${n}`,
      status: 'active',
      remote: 'remote',
      city: 'Berlin',
      country: 'DE',
      description,
    });
    const storedJobs = async () =>
      queryAll({
        KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)',
        ExpressionAttributeValues: { ':pk': keys.company(company.id).PK, ':job': 'JOB#' },
      });
    // What the item holds besides the description, from a job of the same shape with an empty one. Of the
    // rest, only the id differs between jobs: the description leaves room for the widest id below 10^6.
    // (A complete run, as the one below: a partial one marks its jobs `run_frozen`, P192, a few bytes more.)
    await importJobs(company.id, [shape('pp', '')]);
    const [probe] = await storedJobs();
    const rest = itemBytes(probe) - itemBytes({ id: probe.id }) + itemBytes({ id: 999_999 });
    // The import keeps room in each item for what a later run adds to it (P272): a run without the job archives it
    // and freezes its run (P192), in its status, its status slot and `run_frozen`.
    await importJobs(company.id, []);
    const [archivedProbe] = await storedJobs();
    expect(archivedProbe).toMatchObject({ status: 'archived', run_frozen: true });
    const HEADROOM_BYTES = itemBytes(archivedProbe) - itemBytes(probe);
    expect(HEADROOM_BYTES).toBeGreaterThan(itemBytes({ run_frozen: true }));
    const largest = ITEM_LIMIT_BYTES - HEADROOM_BYTES - rest;
    expect(largest).toBeGreaterThan(400_000);

    const feed = Array.from({ length: LARGE_JOBS }, (_, i) => shape(String(i).padStart(2, '0'), textOfBytes(largest, `Job ${i}. `)));
    // Together more than a transaction takes (4 MB), as are 49 of them (the old count per transaction).
    expect(LARGE_JOBS * ITEM_LIMIT_BYTES).toBeGreaterThan(4 * 1024 * 1024);
    const run = await cli(['jobs', 'import', '--company', String(company.id), '--file', jobsFile('jobs-large.json', feed)], dataDir);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json).toEqual({ run_id: expect.any(String), created: LARGE_JOBS, updated: 0, unchanged: 0, archived: 0 });

    const items = (await storedJobs()).filter((item) => item.external_id !== 'big-pp');
    expect(items).toHaveLength(LARGE_JOBS);
    for (const item of items) {
      expect(item.id as number).toBeLessThan(999_999);
      // Each item is at the limit less the headroom, less what its id is narrower than the widest.
      expect(itemBytes(item)).toBe(ITEM_LIMIT_BYTES - HEADROOM_BYTES - (itemBytes({ id: 999_999 }) - itemBytes({ id: item.id })));
    }

    const listed: any[] = [];
    let page = await api.get('/jobs?status=active&page_size=5', { key: partner.key, companyId: company.id });
    expect(page.status).toBe(200);
    expect(page.body.count).toBe(LARGE_JOBS);
    listed.push(...page.body.results);
    while (page.body.next) {
      const next = new URL(page.body.next);
      page = await api.get(next.pathname + next.search, { key: partner.key, companyId: company.id });
      expect(page.status).toBe(200);
      listed.push(...page.body.results);
    }
    expect(listed.map((job) => job.external_id).sort()).toEqual(feed.map((job) => job.external_id));
    const sent = new Map(feed.map((job) => [job.external_id, job.description]));
    for (const job of listed) {
      expect(Buffer.byteLength(job.description)).toBe(largest);
      expect(job.description === sent.get(job.external_id)).toBe(true);
      expect(job.run_id).toBe(run.json.run_id);
    }

    // The same jobs with other descriptions of the same size: every job changed and their events, also more
    // than a transaction takes. Each description now fills its item to the byte, the job's id being known.
    const ids = new Map(items.map((item) => [item.external_id as string, item.id]));
    const changed = feed.map((job, i) =>
      shape(
        job.external_id.slice(4),
        textOfBytes(largest + itemBytes({ id: 999_999 }) - itemBytes({ id: ids.get(job.external_id) }), `Changed ${i}. `),
      ),
    );
    const again = await cli(['jobs', 'import', '--company', String(company.id), '--file', jobsFile('jobs-large-2.json', changed)], dataDir);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.json).toEqual({ run_id: expect.any(String), created: 0, updated: LARGE_JOBS, unchanged: 0, archived: 0 });
    const updated = (await storedJobs()).filter((item) => item.external_id !== 'big-pp');
    for (const item of updated) {
      expect(itemBytes(item)).toBe(ITEM_LIMIT_BYTES - HEADROOM_BYTES);
      expect(item.run_id).toBe(again.json.run_id);
    }
    const count = await api.get('/jobs?status=active&page_size=1', { key: partner.key, companyId: company.id });
    expect(count.body.count).toBe(LARGE_JOBS);

    // A later run archives one of them: archived and run_frozen, its item is now exactly at the limit.
    const [first] = changed;
    await expect(importJobs(company.id, changed.slice(1))).resolves.toMatchObject({ archived: 1, unchanged: LARGE_JOBS - 1 });
    const [archived] = (await storedJobs()).filter((item) => item.external_id === first.external_id);
    expect(archived).toMatchObject({ status: 'archived', run_frozen: true });
    expect(itemBytes(archived)).toBe(ITEM_LIMIT_BYTES);

    // One byte more would not leave that room: the run is refused before it writes anything, naming the job's
    // largest field (P272), and the job stays as it was.
    const last = changed[changed.length - 1];
    const over = { ...last, description: `${last.description}x` };
    await expect(importJobs(company.id, [over], { complete: false })).rejects.toMatchObject({
      code: 'invalid',
      errors: {
        '[0].description': [
          `Job "${last.external_id}" is too large: 409601 bytes stored, DynamoDB takes 409600 (400 KB); this field has ${Buffer.byteLength(over.description) + Buffer.byteLength('description')}.`,
        ],
      },
    });
    const [kept] = (await storedJobs()).filter((item) => item.external_id === last.external_id);
    expect(kept.description === last.description).toBe(true);
  }, 300_000);
});

describe('hiring-admin jobs import refuses what it cannot write whole (P272)', () => {
  let partner: Awaited<ReturnType<typeof aPartner>>;
  beforeAll(async () => {
    partner = await aPartner();
  });
  const jobItems = (companyId: number) =>
    queryAll({
      KeyConditionExpression: 'PK = :pk AND begins_with(SK, :job)',
      ExpressionAttributeValues: { ':pk': keys.company(companyId).PK, ':job': 'JOB#' },
    });
  const feedOf = (prefix: string, n: number) => Array.from({ length: n }, (_, i) => ({ external_id: `${prefix}-${i}`, title: `Job ${i}` }));

  test('one job too large for an item, among 60: the whole file is refused, naming the job, and nothing is written', async () => {
    const company = await aCompany(partner.id);
    const feed: Record<string, unknown>[] = feedOf('big', 60);
    feed[55].description = 'x'.repeat(450_000);
    const run = await cli(['jobs', 'import', '--company', String(company.id), '--file', jobsFile('jobs-oversize.json', feed)], dataDir);
    expect(run.stdout).toBe('');
    expect(run.code).toBe(1);
    const message = expect.stringMatching(
      /^Job "big-55" is too large: \d+ bytes stored, DynamoDB takes 409600 \(400 KB\); this field has 450011\.$/,
    );
    expect(run.json).toEqual({
      detail: expect.stringMatching(/^Invalid value for "\[55\]\.description": Job "big-55"/),
      code: 'invalid',
      errors: { '[55].description': [message] },
    });
    // Not even the first 49 jobs, whose transaction would also have put their job.created events in the outbox.
    expect(await jobItems(company.id)).toEqual([]);
    expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).body.count).toBe(0);
  });

  test('deactivated and deleted companies take no jobs (company_inactive, as jobs sync); an invited one does', async () => {
    const [deactivated, deleted, invited] = await Promise.all(
      (['deactivated', 'deleted', 'invited'] as const).map((status) => aCompany(partner.id, { status })),
    );
    const file = jobsFile('jobs-inactive.json', feedOf('inactive', 2));
    const [a, b, c] = await Promise.all(
      [deactivated, deleted, invited].map((company) => cli(['jobs', 'import', '--company', String(company.id), '--file', file], dataDir)),
    );
    expect([a.code, a.json]).toEqual([
      1,
      { detail: `Company ${deactivated.id} is deactivated: its job imports wait until it is active again.`, code: 'company_inactive' },
    ]);
    expect([b.code, b.json]).toEqual([
      1,
      { detail: `Company ${deleted.id} is deleted: its job imports wait until it is active again.`, code: 'company_inactive' },
    ]);
    expect(await jobItems(deactivated.id)).toEqual([]);
    expect(await jobItems(deleted.id)).toEqual([]);
    expect([c.code, c.json]).toEqual([0, expect.objectContaining({ created: 2 })]);
  });

  test('a file that is not JSON, or not an array, is named --file; a UTF-8 byte order mark is no error', async () => {
    const company = await aCompany(partner.id);
    const notJson = join(work, 'jobs-not-json.json');
    writeFileSync(notJson, '[{"external_id": "x-1",');
    const withBom = join(work, 'jobs-bom.json');
    writeFileSync(withBom, `\uFEFF${JSON.stringify(feedOf('bom', 1))}`);
    const [broken, object, bom] = await Promise.all([
      cli(['jobs', 'import', '--company', String(company.id), '--file', notJson], dataDir),
      cli(['jobs', 'import', '--company', String(company.id), '--file', jobsFile('jobs-object.json', { jobs: [] })], dataDir),
      cli(['jobs', 'import', '--company', String(company.id), '--file', withBom], dataDir),
    ]);
    expect(broken.code).toBe(1);
    expect(broken.json).toEqual({
      detail: expect.stringMatching(/^Invalid value for "--file": Not valid JSON: /),
      code: 'invalid',
      errors: { '--file': [expect.stringMatching(/^Not valid JSON: /)] },
    });
    expect(object.json).toEqual({
      detail: 'Invalid value for "--file": Must be a JSON array of jobs.',
      code: 'invalid',
      errors: { '--file': ['Must be a JSON array of jobs.'] },
    });
    expect(bom.code).toBe(0);
    expect(bom.json).toMatchObject({ created: 1 });
  });

  test('a file import holds the run claim of jobs sync: refused while a run holds it, and held while it writes', async () => {
    const company = await aCompany(partner.id);
    const file = jobsFile('jobs-claimed.json', feedOf('claimed', 3));
    expect(await claimJobImportRun(company.id, 60)).toMatchObject({ record: { id: company.id } }); // a scheduled run from the ATS, say
    const refused = await cli(['jobs', 'import', '--company', String(company.id), '--file', file], dataDir);
    expect(refused.code).toBe(1);
    expect(refused.json).toEqual({
      detail: `A job import of company ${company.id} is already running; try again once it has ended.`,
      code: 'job_import_running',
    });
    expect(await jobItems(company.id)).toEqual([]);
    await releaseJobImportRun(company.id);

    const ran = await cli(['jobs', 'import', '--company', String(company.id), '--file', file], dataDir);
    expect(ran.code).toBe(0);
    expect(ran.json).toMatchObject({ created: 3 });
    // Released at the end: a run may start now.
    expect(await claimJobImportRun(company.id, 1)).toMatchObject({ record: { id: company.id } });
    await releaseJobImportRun(company.id);

    // While it writes, a run from the ATS cannot take the company.
    let during: ReturnType<typeof claimJobImportRun> | undefined;
    const result = await importJobFeed(company.id, feedOf('claimed', 4), {
      onProgress: () => void (during ??= claimJobImportRun(company.id, 60)),
    });
    expect(result).toMatchObject({ created: 1, unchanged: 3 });
    expect(await during).toBeUndefined();
    expect(await claimJobImportRun(company.id, 1)).toMatchObject({ record: { id: company.id } });
    await releaseJobImportRun(company.id);
  });
});

describe('hiring-admin with no server running (embedded emulators on DATA_DIR)', () => {
  test('data persists between runs in the data directory', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'his-admin-data-'));
    try {
      const first = await cli(['partner', 'create', '--name', 'First'], fresh);
      expect(first.code).toBe(0);
      expect(first.json).toMatchObject({ id: 1, name: 'First', kind: 'job_board' });
      const second = await cli(['partner', 'create', '--name', 'Second'], fresh);
      expect(second.code).toBe(0);
      expect(second.json).toMatchObject({ id: 2, name: 'Second' });
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});
