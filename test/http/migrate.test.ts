/**
 * `hiring-admin migrate` on a table written before the index layout of issue 11: items without the slot and
 * date attributes and without per-filter totals are found again by every filter once it ran; running it
 * again changes nothing; a run that crashes part-way resumes and counts every item once; an application the
 * worker decided before the migration reached it is counted in its final status.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DeleteCommand, QueryCommand, ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { createApplication, parseApplication } from '#applications/application-create.js';
import { runMigrations } from '#applications/migrations.js';
import { getCompanyRecord } from '#companies/companies.js';
import { syncApplication } from '#delivery/sync.js';
import { config, db } from '#platform/clients.js';
import { keys } from '#platform/keys.js';
import { aCompany, aPartner, withJobs } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;
const created: number[] = [];

const LAYOUT_V2 = ['X1PK', 'X2PK', 'X3PK', 'X4PK', 'X5PK', 'X6PK', 'X7PK', 'X8PK', 'XSK', 'D1SK', 'D2SK', 'index_version'];

/** Puts the company's applications and counters back to how the previous version wrote them. */
async function toOldLayout(): Promise<void> {
  for (const id of created)
    await db().send(
      new UpdateCommand({ TableName: config().tableName, Key: keys.application(id), UpdateExpression: `REMOVE ${LAYOUT_V2.join(', ')}` }),
    );
  const counters = await db().send(
    new ScanCommand({
      TableName: config().tableName,
      FilterExpression: 'begins_with(PK, :p)',
      ExpressionAttributeValues: { ':p': `COUNT#COMPANY#${company.id}#APPS` },
    }),
  );
  for (const item of counters.Items ?? []) {
    // The previous version kept only the company total.
    if (item.PK === `COUNT#COMPANY#${company.id}#APPS`)
      await db().send(
        new UpdateCommand({
          TableName: config().tableName,
          Key: { PK: item.PK, SK: item.SK },
          UpdateExpression: `REMOVE ${Object.keys(item)
            .filter((name) => name.includes('#'))
            .map((_, i) => `#r${i}`)
            .join(', ')}`,
          ExpressionAttributeNames: Object.fromEntries(
            Object.keys(item)
              .filter((name) => name.includes('#'))
              .map((name, i) => [`#r${i}`, name]),
          ),
        }),
      );
    else await db().send(new DeleteCommand({ TableName: config().tableName, Key: { PK: item.PK, SK: item.SK } }));
  }
  await db().send(new DeleteCommand({ TableName: config().tableName, Key: keys.migration('application-indexes-v2') }));
}

const list = (query: string) => api.get(`/applications/?${query}`, { key: partner.key, companyId: company.id });

async function counts() {
  const out: Record<string, number> = {};
  for (const query of [
    'channel=web',
    'channel=mail',
    'sync_status=NOTSENT',
    'sync_status=EXPECTED_FAILURE',
    'partner_job_id=PJ-1',
    'partner_application_id=PA-3',
  ])
    out[query] = (await list(query)).body.count;
  return out;
}

function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { DATA_DIR: api.runtime.dataDir, LOG_LEVEL: 'SILENT', PATH: process.env.PATH, HOME: process.env.HOME };
  return new Promise((resolve) => {
    execFile(process.execPath, [join(process.cwd(), 'bin', 'hiring-admin.js'), ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id);
  await withJobs(company.id, [{ external_id: 'J', title: 'Job' }]);
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id;
  const record = (await getCompanyRecord(company.id))!;
  for (let i = 0; i < 12; i++) {
    const { input } = parseApplication(
      {
        job,
        candidate: { email: i === 0 ? 'dup+duplicate@example.com' : `c${i}@example.com`, full_name: `C ${i}` },
        channel: i % 3 === 0 ? 'mail' : 'web',
        partner_job_id: `PJ-${i % 2}`,
        partner_application_id: `PA-${i}`,
      },
      [],
    );
    created.push((await createApplication(record, partner.id, input, [])).record.id);
  }
});
afterAll(() => api.stop());

const expected = {
  'channel=web': 8,
  'channel=mail': 4,
  'sync_status=NOTSENT': 11,
  'sync_status=EXPECTED_FAILURE': 1,
  'partner_job_id=PJ-1': 6,
  'partner_application_id=PA-3': 1,
};

test('old items are invisible to the filters until migrate runs; then every filter and count is exact, and a second run changes nothing', async () => {
  await toOldLayout();
  // Decided by the worker while still in the old layout: counted by the migration in its final status.
  await syncApplication(created[0]);
  expect((await counts())['channel=web']).toBe(0);

  const first = await cli('migrate');
  expect(first.code).toBe(0);
  expect(JSON.parse(first.stdout)).toEqual({
    migrations: [{ name: 'application-indexes-v2', scanned: expect.any(Number), migrated: 12, done: true }],
  });
  expect(first.stderr).toMatch(/^migrate: application-indexes-v2: \d+ items scanned, 12 migrated, done$/m);
  expect(await counts()).toEqual(expected);
  const ids = (await list('channel=mail')).body.results.map((a: { id: number }) => a.id);
  expect(ids).toEqual(created.filter((_, i) => i % 3 === 0).reverse());

  const second = await cli('migrate');
  expect(JSON.parse(second.stdout).migrations[0]).toMatchObject({ migrated: 12, done: true });
  expect(await counts()).toEqual(expected);
});

test('a run that crashes part-way resumes where it stopped and counts every item once', async () => {
  await toOldLayout();
  let pages = 0;
  await expect(
    runMigrations(
      () => {
        if (++pages === 2) throw new Error('crash');
      },
      { pageSize: 5 },
    ),
  ).rejects.toThrow('crash');
  const partial = await db().send(
    new QueryCommand({
      TableName: config().tableName,
      KeyConditionExpression: 'PK = :pk',
      ExpressionAttributeValues: { ':pk': keys.migration('application-indexes-v2').PK },
    }),
  );
  expect(partial.Items?.[0]).toMatchObject({ done: false });
  const [result] = await runMigrations(() => {}, { pageSize: 5 });
  expect(result.done).toBe(true);
  expect(await counts()).toEqual(expected);
});
