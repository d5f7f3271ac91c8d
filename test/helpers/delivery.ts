/**
 * End-to-end delivery helpers for the connector tests: create an application through the API, let the sync
 * worker deliver it, and read it back; and the e-mails the fallback wrote since a point in time.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from '@jest/globals';
import type { TestRuntime } from './runtime.js';

/** POSTs the application body, drains the worker, and returns the application as the API shows it. */
export async function applyAndDeliver(
  api: TestRuntime,
  partnerKey: string,
  companyId: number,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const created = await api.request('POST', '/applications/', { key: partnerKey, companyId, body });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();
  return (await api.get(`/applications/${created.body.id}`, { key: partnerKey, companyId })).body;
}

/**
 * An application to the company's (first) job, made through HTTP with the candidate `{email}@example.com` and
 * delivered by the sync worker, as GET /applications/{id} shows it (the outcome tests of the ATSs read it back).
 */
export async function deliveredToFirstJob(
  api: TestRuntime,
  partner: { key: string },
  company: { id: number },
  email: string,
): Promise<{ id: number } & Record<string, unknown>> {
  const job = (await api.get('/jobs', { key: partner.key, companyId: company.id })).body.results[0].id as number;
  const body = { job, candidate: { email: `${email}@example.com`, full_name: 'Ada Lovelace' } };
  return (await applyAndDeliver(api, partner.key, company.id, body)) as { id: number } & Record<string, unknown>;
}

/** The outbox now; `sent()` then gives the text of each e-mail written since (line breaks removed). */
export function outboxWatch(api: TestRuntime): { sent(): string[] } {
  const outbox = join(api.runtime.dataDir, 'outbox');
  const mails = () => (existsSync(outbox) ? readdirSync(outbox).filter((f) => f.endsWith('.eml')) : []);
  const before = new Set(mails());
  return {
    sent: () =>
      mails()
        .filter((f) => !before.has(f))
        .map((f) => readFileSync(join(outbox, f), 'utf8').replace(/\r\n/g, '')),
  };
}
