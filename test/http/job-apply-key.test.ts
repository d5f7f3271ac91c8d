/**
 * P276: a job's internal `ats_apply_key` (the id or slug the ATS's apply call needs when it differs from
 * `external_id`, e.g. Recruitee's offer slug). The import validates, stores and compares it; the Job API never
 * shows it; the sync hands it to the connector as `Submission.jobApplyKey`.
 */
import type { ApplicationRecord } from '#applications/applications.js';
import type { CompanyRecord } from '#companies/company-schema.js';
import { submissionFor } from '#delivery/sync.js';
import { findJobByExternalId, importJobs } from '#jobs/job-store.js';
import { aCompany, aJob, aPartner } from '../helpers/fixtures.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
});
afterAll(() => api.stop());

describe('ats_apply_key (P276)', () => {
  test('stored with the job, never in GET /jobs or GET /jobs/{id}; a changed key updates the job without touching its content', async () => {
    const company = await aCompany(partner.id);
    const offer = aJob({ external_id: '501', title: 'Platform Engineer' });
    expect(await importJobs(company.id, [{ ...offer, ats_apply_key: 'platform-engineer' }])).toMatchObject({ created: 1 });
    const stored = (await findJobByExternalId(company.id, '501'))!;
    expect(stored.ats_apply_key).toBe('platform-engineer');

    const single = await api.get(`/jobs/${stored.id}`, { key: partner.key, companyId: company.id });
    expect(single.status).toBe(200);
    expect(single.body).not.toHaveProperty('ats_apply_key');
    expect(JSON.stringify(single.body)).not.toContain('platform-engineer');
    const list = await api.get('/jobs', { key: partner.key, companyId: company.id });
    expect(list.body.results).toHaveLength(1);
    expect(list.body.results[0]).not.toHaveProperty('ats_apply_key');

    // The same feed: unchanged. A new slug alone: updated, content (fingerprint) as it was.
    expect(await importJobs(company.id, [{ ...offer, ats_apply_key: 'platform-engineer' }])).toMatchObject({ updated: 0, unchanged: 1 });
    expect(await importJobs(company.id, [{ ...offer, ats_apply_key: 'platform-engineer-berlin' }])).toMatchObject({ updated: 1 });
    const renamed = (await findJobByExternalId(company.id, '501'))!;
    expect(renamed.ats_apply_key).toBe('platform-engineer-berlin');
    expect(renamed.fingerprint).toBe(stored.fingerprint);
    expect(renamed.last_content_update_at).toBe(stored.last_content_update_at);

    // A feed without the key takes it off the job.
    expect(await importJobs(company.id, [offer])).toMatchObject({ updated: 1 });
    expect((await findJobByExternalId(company.id, '501'))!).not.toHaveProperty('ats_apply_key');
  });

  test('a job without a key is stored without the attribute (its item, and so its write cost, as before)', async () => {
    const company = await aCompany(partner.id);
    await importJobs(company.id, [aJob({ external_id: 'plain-1' })]);
    expect(Object.keys((await findJobByExternalId(company.id, 'plain-1'))!)).not.toContain('ats_apply_key');
  });

  test.each([
    ['an empty string', ''],
    ['a number', 42],
    ['more than 255 characters', 'x'.repeat(256)],
  ])('a key that is %s fails the feed before anything is written', async (_name, key) => {
    const company = await aCompany(partner.id);
    await expect(importJobs(company.id, [aJob({ external_id: 'bad-1', ats_apply_key: key })])).rejects.toMatchObject({
      statusCode: 400,
      errors: { '[0].ats_apply_key': [expect.any(String)] },
    });
    expect(await findJobByExternalId(company.id, 'bad-1')).toBeUndefined();
  });

  test('the sync gives the connector the stored key as jobApplyKey, and nothing when the job has none', async () => {
    const company = await aCompany(partner.id);
    await importJobs(company.id, [aJob({ external_id: '601', ats_apply_key: 'data-analyst' }), aJob({ external_id: '602' })]);
    const record = {
      id: 1,
      candidate: { email: 'a@example.com' },
      applied_at: '2026-01-01T00:00:00.000Z',
      channel: null,
    } as unknown as ApplicationRecord;
    const withKey = submissionFor(record, company as unknown as CompanyRecord, (await findJobByExternalId(company.id, '601'))!, 'ref-1');
    expect(withKey).toMatchObject({ jobExternalId: '601', jobApplyKey: 'data-analyst' });
    const without = submissionFor(record, company as unknown as CompanyRecord, (await findJobByExternalId(company.id, '602'))!, 'ref-2');
    expect(without.jobExternalId).toBe('602');
    expect(without).not.toHaveProperty('jobApplyKey');
  });
});
