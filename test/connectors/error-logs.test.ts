/**
 * What the service logs when an ATS fails a submission (P284): the ATS's own error text can echo the
 * candidate (a name, a phone number, an e-mail address), so it never reaches a log line. Through the real
 * path: HTTP create → sync queue → the sync worker's handler (which logs every retried attempt) → the
 * SmartRecruiters connector → a loopback ATS that answers 503 and echoes the application back.
 */
import { connectCompany } from '#delivery/ats-connections.js';
import { createApiKey } from '#companies/api-keys.js';
import { createCompany } from '#companies/company-store.js';
import { importJobs } from '#jobs/job-store.js';
import { aPartner } from '../helpers/fixtures.js';
import { captureServiceLogs } from '../helpers/logs.js';
import { startTestRuntime, type TestRuntime } from '../helpers/runtime.js';
import { startSimulatorServer, type SimulatorServer } from '../simulators/server.js';

process.env.SYNC_RETRY_BASE_SECONDS = '0';
process.env.SYNC_CLAIM_SECONDS = '1';
process.env.SYNC_MAX_ATTEMPTS = '2';
process.env.SMARTRECRUITERS_MAX_RETRIES = '0';

const UUID = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
const CANDIDATE = { email: 'echo.me@example.com', first_name: 'Wilhelmina', last_name: 'Echoberg', phone: '+49 170 5550123' };

let api: TestRuntime;
let ats: SimulatorServer;
let logs: ReturnType<typeof captureServiceLogs>;

beforeAll(async () => {
  // An ATS whose checks pass and whose application endpoint is down, answering with what it was sent.
  ats = await startSimulatorServer((request) => {
    if (request.method === 'GET' && request.path.endsWith('/postings'))
      return { status: 200, body: { offset: 0, limit: 1, totalFound: 0, content: [] } };
    if (request.method === 'GET' && request.path.endsWith('/configuration'))
      return request.path.includes(UUID)
        ? { status: 200, body: { questions: [] } }
        : { status: 404, body: { code: 'NOT_FOUND', message: 'Not found' } };
    const sent = request.json as Record<string, unknown> | undefined;
    return {
      status: 503,
      body: {
        code: 'SERVICE_UNAVAILABLE',
        message: `Could not store ${String(sent?.firstName)} ${String(sent?.lastName)} (${String(sent?.email)}, ${String(sent?.phoneNumber)})`,
        errors: [{ code: 'ECHO', message: JSON.stringify(sent) }],
      },
    };
  });
  process.env.SMARTRECRUITERS_API_URL = `${ats.url}/sr`;
  api = await startTestRuntime();
  logs = captureServiceLogs();
});
afterAll(async () => {
  logs.stop();
  await Promise.all([api.stop(), ats.stop()]);
});

test('a retried ATS failure is logged by its error name and kind, never with the ATS text that echoes the candidate', async () => {
  const partner = await aPartner();
  const company = await createCompany({ partner: partner.id, name: 'Echo GmbH', ats: 'smartrecruiters', entitlements: ['candidate_sync'] });
  await createApiKey({ company: company.id });
  await importJobs(company.id, [{ external_id: UUID, title: 'Echo Engineer', status: 'active' }]);
  await connectCompany(company.id, 'smartrecruiters', { company_identifier: 'echo', api_key: 'echo-smart-token-0001' });
  const job = (await api.get(`/jobs?external_id=${UUID}`, { key: partner.key, companyId: company.id })).body.results[0].id as number;
  const created = await api.request('POST', '/applications/', {
    key: partner.key,
    companyId: company.id,
    body: { job, candidate: CANDIDATE },
  });
  expect(created.status).toBe(201);
  await api.runtime.poller.drain();

  const application = (await api.get(`/applications/${created.body.id}`, { key: partner.key, companyId: company.id })).body;
  expect(application).toMatchObject({ sync_status: 'FAILURE', failure_error: 'AtsUnavailableError' });
  // The ATS did echo the candidate, and the attempt that came back was logged with its reason.
  const posts = ats.requests.filter((r) => r.method === 'POST');
  expect(posts.length).toBe(2);
  expect(logs.text()).toContain('sync attempt failed; the message comes back');
  expect(logs.text()).toContain('AtsUnavailableError (transient)');
  for (const value of [CANDIDATE.first_name, CANDIDATE.last_name, CANDIDATE.phone, CANDIDATE.email, 'echo-smart-token-0001'])
    expect({ value, logged: logs.text().includes(value) }).toEqual({ value, logged: false });
});
