/**
 * Lookup items (P241): the partner ids of an application (`partner_application_id`, `partner_job_id`,
 * `partner_company_id`, `agency_job_id`) and a company's `partner_company_id` are base-table items in the
 * partition their slot had, written with the record. What they hold, that they follow a company's changes,
 * that one company's partition never answers for another, and what retention leaves.
 */
import { importJobs } from '#jobs/job-store.js';
import { acceptClockHeader } from '../../local/http-adapter.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { allItems } from '../helpers/inspect.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;

const ids = { partner_application_id: 'PA-1', partner_job_id: 'PJ-1', partner_company_id: 'PC-1', agency_job_id: 'AJ-1' };

/** The lookup items of the table: base-table items whose partition is a filter value's (`…#<filter>=<value>`). */
async function lookupItems(): Promise<Record<string, unknown>[]> {
  return (await allItems()).filter((item) =>
    /^COMPANY#\d+#APPS#(partner_application_id|partner_job_id|partner_company_id|agency_job_id)=/.test(String(item.PK)),
  );
}

async function companyWithJob(overrides: Parameters<typeof aCompany>[1] = {}) {
  const company = await aCompany(partner.id, { entitlements: [], ...overrides });
  await importJobs(company.id, [{ external_id: 'J-1', title: 'Engineer' }]);
  const job = (await api.get('/jobs?external_id=J-1', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  return { company, job };
}

async function createApplication(companyId: number, job: number, email: string, extra: Record<string, unknown> = {}, instant?: string) {
  const res = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId,
    headers: instant ? { 'X-Fake-Now': instant } : {},
    body: { job, candidate: { email, full_name: 'Ada Lovelace', phone: '+49 555 0101' }, notes: 'private', ...extra },
  });
  expect(res.status).toBe(201);
  return res.body as { id: number; created_at: string };
}

const listIds = async (companyId: number, query: string) => {
  const res = await api.get(`/applications/?${query}`, { key: partner.key, companyId });
  expect(res.status).toBe(200);
  return { count: res.body.count as number, ids: (res.body.results as { id: number }[]).map((r) => r.id) };
};

beforeAll(async () => {
  acceptClockHeader();
  api = await startTestRuntime();
  partner = await aPartner(undefined, 'agency');
});
afterAll(async () => {
  acceptClockHeader(false);
  await api.stop();
});

test('a create writes one lookup item per partner id it has, holding only its keys; another company finds nothing in them', async () => {
  const { company, job } = await companyWithJob();
  const { company: other, job: otherJob } = await companyWithJob();
  const before = new Set((await lookupItems()).map((i) => `${String(i.PK)} ${String(i.SK)}`));
  const first = await createApplication(company.id, job, 'a@example.com', ids);
  const second = await createApplication(company.id, job, 'b@example.com', { partner_job_id: 'PJ-1' });
  await createApplication(company.id, job, 'c@example.com');
  const added = (await lookupItems()).filter((i) => !before.has(`${String(i.PK)} ${String(i.SK)}`));
  // Four for the first, one for the second, none for the third; each just a partition and a sort key.
  expect(added).toHaveLength(5);
  for (const item of added) {
    expect(Object.keys(item).sort()).toEqual(['PK', 'SK']);
    expect(String(item.PK)).toMatch(new RegExp(`^COMPANY#${company.id}#APPS#`));
  }
  expect(added.map((i) => String(i.PK)).sort()).toEqual(
    [
      ...Object.entries(ids).map(([filter, value]) => `COMPANY#${company.id}#APPS#${filter}=${value}`),
      `COMPANY#${company.id}#APPS#partner_job_id=PJ-1`,
    ].sort(),
  );
  // Every filter lists what it did as a slot, newest first, with its count.
  for (const [filter, value] of Object.entries(ids)) {
    const expected = filter === 'partner_job_id' ? [second.id, first.id] : [first.id];
    expect(await listIds(company.id, `${filter}=${value}`)).toEqual({ count: expected.length, ids: expected });
  }
  expect(await listIds(company.id, 'partner_job_id=PJ-1&partner_application_id=PA-1')).toEqual({ count: 1, ids: [first.id] });

  // Another company of the same partner, its own applications with the same ids: each sees only its own.
  const foreign = await createApplication(other.id, otherJob, 'd@example.com', ids);
  for (const [filter, value] of Object.entries(ids)) {
    expect(await listIds(other.id, `${filter}=${value}`)).toEqual({ count: 1, ids: [foreign.id] });
    expect((await listIds(company.id, `${filter}=${value}`)).ids).not.toContain(foreign.id);
  }
  // A company whose applications have none of these values finds nothing in another company's partitions.
  const { company: empty } = await companyWithJob();
  for (const [filter, value] of Object.entries(ids)) expect(await listIds(empty.id, `${filter}=${value}`)).toEqual({ count: 0, ids: [] });
  // Another company's application by id is not found either (tenancy).
  expect((await api.get(`/applications/${first.id}`, { key: partner.key, companyId: empty.id })).status).toBe(404);
});

test("a company's partner_company_id lookup item follows its changes: set, moved, cleared; a rename leaves it", async () => {
  const company = await aCompany(partner.id, { name: 'Lookup GmbH', partner_company_id: 'LC-1', entitlements: [] });
  const list = async (value: string) =>
    ((await api.get(`/companies/?partner_company_id=${value}`, { key: partner.key })).body.results as { id: number }[]).map((c) => c.id);
  const mine = async () =>
    (await allItems()).filter((i) => String(i.PK).includes('#partner_company_id=LC-') && String(i.PK).includes(`PARTNER#${partner.id}#`));
  expect((await mine()).map((i) => i.PK)).toEqual([`PARTNER#${partner.id}#COMPANIES#partner_company_id=LC-1`]);
  expect(await list('LC-1')).toEqual([company.id]);

  const patch = (body: Record<string, unknown>) =>
    api.request('PATCH', `/companies/${company.id}/`, { key: partner.key, companyId: company.id, body });
  expect((await patch({ name: 'Lookup SE' })).status).toBe(200);
  const [kept] = await mine();
  expect(kept.PK).toBe(`PARTNER#${partner.id}#COMPANIES#partner_company_id=LC-1`);
  expect(Object.keys(kept).sort()).toEqual(['PK', 'SK']);

  expect((await patch({ partner_company_id: 'LC-2' })).status).toBe(200);
  expect((await mine()).map((i) => i.PK)).toEqual([`PARTNER#${partner.id}#COMPANIES#partner_company_id=LC-2`]);
  expect(await list('LC-1')).toEqual([]);
  expect(await list('LC-2')).toEqual([company.id]);

  expect((await patch({ partner_company_id: null })).status).toBe(200);
  expect(await mine()).toEqual([]);
  expect(await list('LC-2')).toEqual([]);
});

test('retention leaves the lookup items, which hold no personal data: the record keeps its ids and the filters still count it', async () => {
  const { company, job } = await companyWithJob();
  const old = new Date(Date.now() - 200 * 24 * 3600 * 1000).toISOString();
  const app = await createApplication(company.id, job, 'retained@example.com', ids, old);
  expect(await api.runtime.scheduler.run('Retention')).toMatchObject({ purged: 1 });
  const items = await allItems();
  const record = items.find((i) => i.PK === `APPLICATION#${app.id}`)!;
  expect(record).toMatchObject({ status: 'anonymized', ...ids });
  expect(record).not.toHaveProperty('candidate');
  const lookups = items.filter((i) => String(i.PK).startsWith(`COMPANY#${company.id}#APPS#`));
  expect(lookups).toHaveLength(4);
  for (const item of lookups) expect(Object.keys(item).sort()).toEqual(['PK', 'SK']);
  expect(JSON.stringify(lookups)).not.toMatch(/retained|Lovelace|0101|private/);
  // As the slots did: the anonymized application is still listed by its partner ids, its totals agreeing.
  for (const [filter, value] of Object.entries(ids))
    expect(await listIds(company.id, `${filter}=${value}`)).toEqual({ count: 1, ids: [app.id] });
});
