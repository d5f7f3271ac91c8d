/**
 * The connection and lifecycle commands of the admin tool as an operator runs them: the real bin shim in a
 * child process against this file's runtime (it finds runtime.json, which carries the ATS base URLs), with
 * the Greenhouse simulator on loopback standing in for Greenhouse.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { connectorFor } from '#delivery/connectors/registry.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startGreenhouseSimulator, type GreenhouseSimulator } from '../simulators/greenhouse.js';
import { bareEnv, runAdminTool, type CliResult } from '../helpers/admin-cli.js';

let api: TestRuntime;
let greenhouse: GreenhouseSimulator;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;

function cli(...args: string[]): Promise<CliResult> {
  return runAdminTool(args, bareEnv(api.runtime.dataDir));
}

beforeAll(async () => {
  greenhouse = await startGreenhouseSimulator();
  greenhouse.boards.set('acme', {
    token: 'acme',
    apiKey: 'the-right-key',
    jobs: [{ id: 7, title: 'Cook', content: '<p>Cooks.</p>' }],
  });
  Object.assign(process.env, greenhouse.env);
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id, { ats: 'sandbox', status: 'invited', entitlements: [] });
});
afterAll(async () => {
  await api.stop();
  await greenhouse.server.stop();
});

const companyOverApi = async () =>
  (await api.get('/companies/', { key: partner.key })).body.results.find((c: { id: number }) => c.id === company.id);

test('connect names missing and rejected credentials by their flags and saves nothing; then connects', async () => {
  const missing = await cli('company', 'connect', String(company.id), '--ats', 'greenhouse');
  expect(missing.code).toBe(1);
  expect(missing.stdout).toBe('');
  expect(Object.keys(missing.json.errors).sort()).toEqual(['--api-key', '--board-token']);
  // The detail names the flags too (P272), not the fields behind them.
  expect(missing.json.detail).toBe(
    `Invalid values for ${Object.keys(missing.json.errors)
      .map((flag) => `"${flag}"`)
      .join(', ')}.`,
  );

  const wrong = await cli(
    'company',
    'connect',
    String(company.id),
    '--ats',
    'greenhouse',
    '--board-token',
    'nope',
    '--api-key',
    'the-right-key',
  );
  expect(wrong.code).toBe(1);
  expect(wrong.json).toMatchObject({ code: 'credentials_rejected' });
  expect(Object.keys(wrong.json.errors)).toContain('--board-token');
  expect(await companyOverApi()).toMatchObject({ ats: 'sandbox', status: 'invited' });

  // A wrong Job Board API key is refused at connect time now (P211), named by its flag.
  const wrongKey = await cli(
    'company',
    'connect',
    String(company.id),
    '--ats',
    'greenhouse',
    '--board-token',
    'acme',
    '--api-key',
    'a-wrong-key',
  );
  expect(wrongKey.code).toBe(1);
  expect(wrongKey.json).toMatchObject({ code: 'credentials_rejected', errors: { '--api-key': [expect.any(String)] } });
  expect(wrongKey.stdout + wrongKey.stderr).not.toContain('a-wrong-key');
  expect(await companyOverApi()).toMatchObject({ ats: 'sandbox', status: 'invited' });

  const ok = await cli(
    'company',
    'connect',
    String(company.id),
    '--ats',
    'greenhouse',
    '--board-token',
    'acme',
    '--api-key',
    'the-right-key',
  );
  expect(ok.code).toBe(0);
  expect(ok.json).toMatchObject({ id: company.id, ats: 'greenhouse', status: 'active' });
  // It says exactly what the check proved, and what it could not (issue 24).
  expect(ok.json.credentials_check).toEqual({
    call: expect.stringContaining('/jobs/0'),
    proved: expect.stringContaining('The job board exists'),
    not_proved: expect.stringContaining('heuristic'),
  });
  // And whether outcomes are tracked, as the connector declares it (P323): how, or why not.
  const declared = connectorFor('greenhouse')!.outcomes;
  expect(ok.json.outcomes).toEqual({
    tracked: declared.by,
    detail: declared.by === 'none' ? declared.reason : declared.by === 'webhook' ? declared.about : declared.call,
  });
  expect(ok.stdout + ok.stderr).not.toContain('the-right-key');
  expect(await companyOverApi()).toMatchObject({ ats: 'greenhouse', status: 'active', magic_link: null });
});

test('entitle, jobs sync, set-status and disconnect', async () => {
  const entitled = await cli('company', 'entitle', String(company.id), '--add', 'job_sync,candidate_sync');
  expect(entitled.code).toBe(0);
  expect(entitled.json).toMatchObject({ job_sync_active: true, candidate_sync_active: true });

  const bad = await cli('company', 'entitle', String(company.id), '--add', 'everything');
  expect(bad.code).toBe(1);
  expect(Object.keys(bad.json.errors)).toEqual(['--add']);

  const sync = await cli('jobs', 'sync', '--company', String(company.id));
  expect(sync.code).toBe(0);
  expect(sync.json).toEqual({ run_id: expect.any(String), created: 1, updated: 0, unchanged: 0, archived: 0 });
  const jobs = await api.get('/jobs', { key: partner.key, companyId: company.id });
  expect(jobs.body.results.map((j: { external_id: string; title: string }) => [j.external_id, j.title])).toEqual([['7', 'Cook']]);

  const deactivated = await cli('company', 'set-status', String(company.id), 'deactivated');
  expect(deactivated.json).toMatchObject({ status: 'deactivated' });
  const refused = await cli('jobs', 'sync', '--company', String(company.id));
  expect(refused.code).toBe(1);
  expect(refused.json).toMatchObject({ code: 'company_inactive' });
  // A jobs file for it waits as the sync does (D17, P272), and changes no job.
  const file = join(mkdtempSync(join(tmpdir(), 'his-admin-connections-')), 'jobs.json');
  writeFileSync(
    file,
    JSON.stringify([
      { external_id: '7', title: 'Cook (from a file)' },
      { external_id: 'file-1', title: 'Waiter' },
    ]),
  );
  const imported = await cli('jobs', 'import', '--company', String(company.id), '--file', file);
  expect(imported.code).toBe(1);
  expect(imported.json).toEqual(refused.json);
  rmSync(dirname(file), { recursive: true, force: true });
  expect((await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results).toMatchObject([
    { external_id: '7', title: 'Cook' },
  ]);
  const unknown = await cli('company', 'set-status', String(company.id), 'asleep');
  expect(unknown.code).toBe(1);
  expect(Object.keys(unknown.json.errors)).toEqual(['STATUS']);
  expect(unknown.json.detail).toBe(`Invalid value for "STATUS": ${unknown.json.errors.STATUS.join(' ')}`);

  expect((await cli('company', 'set-status', String(company.id), 'active')).json).toMatchObject({ status: 'active' });
  const disconnected = await cli('company', 'disconnect', String(company.id));
  expect(disconnected.json).toMatchObject({ id: company.id, job_sync_active: false, candidate_sync_active: false });
});
