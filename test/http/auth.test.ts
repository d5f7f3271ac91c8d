import { revokeApiKey } from '#companies/api-keys.js';
import { aCompany, aPartner } from '../helpers/fixtures.js';
import { contractFetch, startTestRuntime, type TestRuntime } from '../helpers/runtime.js';

let api: TestRuntime;
let partner: Awaited<ReturnType<typeof aPartner>>;
let company: Awaited<ReturnType<typeof aCompany>>;

beforeAll(async () => {
  api = await startTestRuntime();
  partner = await aPartner();
  company = await aCompany(partner.id);
});
afterAll(() => api.stop());

describe('authentication (D2, D16)', () => {
  test('a request without a key is 401 with WWW-Authenticate and the D2 shape', async () => {
    const res = await api.get('/companies/');
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe('Bearer');
    expect(res.body).toEqual({ detail: expect.any(String), code: 'not_authenticated' });
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });

  test.each([
    ['an unknown key', 'Bearer his_unknownunknownunknownunknownunknown'],
    ['a non-bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['an empty bearer', 'Bearer '],
  ])('%s is 401', async (_name, authorization) => {
    const res = await api.get('/companies/', { headers: { Authorization: authorization } });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('not_authenticated');
  });

  test('a valid partner key is accepted and the response carries a request id', async () => {
    const res = await api.get('/companies/', { key: partner.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers.get('x-dynamodb-capacity')).toMatch(/^units=[\d.]+; calls=\d+; read=[\d.]+; write=[\d.]+; sequential=\d+$/);
  });

  test('the Authorization header name is case-insensitive', async () => {
    const res = await contractFetch(`${api.url}/companies/`, { headers: { AUTHORIZATION: `Bearer ${partner.key}` } });
    expect(res.status).toBe(200);
  });

  test('a revoked key is refused (authorizer cache TTL 0 in tests)', async () => {
    const other = await aCompany(partner.id);
    expect((await api.get('/companies/', { key: other.key })).status).toBe(200);
    await revokeApiKey(other.keyId);
    expect((await api.get('/companies/', { key: other.key })).status).toBe(401);
  });
});

describe('Company-Id (D3)', () => {
  test('missing on a route that needs it is 400', async () => {
    const res = await api.get('/jobs', { key: partner.key });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('company_id_required');
  });

  test.each(['abc', '1.5', '-3', '0', '12abc'])('non-integer or non-positive %p is 400', async (value) => {
    const res = await api.get('/jobs', { key: partner.key, companyId: value });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_company_id');
  });

  test('a company that does not exist is 403', async () => {
    const res = await api.get('/jobs', { key: partner.key, companyId: 999999 });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('permission_denied');
  });

  test('a company of another partner is 403 for a partner key', async () => {
    const stranger = await aPartner();
    const theirs = await aCompany(stranger.id);
    expect((await api.get('/jobs', { key: partner.key, companyId: theirs.id })).status).toBe(403);
    expect((await api.get('/jobs', { key: stranger.key, companyId: theirs.id })).status).toBe(200);
  });

  test('a company key may act only for its own company, not a sibling', async () => {
    const sibling = await aCompany(partner.id);
    expect((await api.get('/jobs', { key: company.key, companyId: company.id })).status).toBe(200);
    expect((await api.get('/jobs', { key: company.key, companyId: sibling.id })).status).toBe(403);
    expect((await api.get('/jobs', { key: partner.key, companyId: sibling.id })).status).toBe(200);
  });
});

describe('routing as the gateway does it', () => {
  test('an unknown path is 404 in the D2 shape', async () => {
    const res = await api.get('/nothing-here', { key: partner.key });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });

  test('a known path with another method is 405 with Allow', async () => {
    const res = await api.request('DELETE', '/jobs', { key: partner.key, companyId: company.id });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET');
    expect(res.body.code).toBe('method_not_allowed');
  });
});

describe('DynamoDB accounting', () => {
  test('every call of a request is counted, also those made by libraries (idempotency)', async () => {
    const list = await api.get('/jobs', { key: partner.key, companyId: company.id });
    expect(list.headers.get('x-dynamodb-capacity')).toMatch(/^units=[\d.]+; calls=[1-9]\d*; read=[\d.]+; write=[\d.]+; sequential=\d+$/);
    const body = { external_job_id: 'missing', candidate: { email: 'a@example.com', full_name: 'A B' } };
    const callsOf = (res: { headers: Headers }) => Number(/calls=(\d+)/.exec(res.headers.get('x-dynamodb-capacity')!)![1]);
    const plain = await api.request('POST', '/applications/', { key: partner.key, companyId: company.id, body });
    const keyed = await api.request('POST', '/applications/', {
      key: partner.key,
      companyId: company.id,
      body,
      headers: { 'Idempotency-Key': 'accounting-1' },
    });
    // Once more after: a per-instance cache (the company check, 10 s) that expired before one of them adds a
    // read there, so the cheaper plain request is the baseline.
    const plainAgain = await api.request('POST', '/applications/', { key: partner.key, companyId: company.id, body });
    expect([plain.status, keyed.status, plainAgain.status]).toEqual([400, 400, 400]);
    // The idempotency layer writes its in-progress record and removes it again: both calls are in the account.
    expect(callsOf(keyed) - Math.min(callsOf(plain), callsOf(plainAgain))).toBeGreaterThanOrEqual(2);
  });
});
