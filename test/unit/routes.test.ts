import { canonicalPath, matchRoute, pathVariants, routes } from '#http/routes.js';

describe('route table', () => {
  test('every route has a unique id and a unique method + path', () => {
    expect(new Set(routes.map((r) => r.id)).size).toBe(routes.length);
    expect(new Set(routes.map((r) => `${r.method} ${canonicalPath(r.path)}`)).size).toBe(routes.length);
  });

  test('List Companies is the only route without Company-Id (D3)', () => {
    expect(routes.filter((r) => !r.companyHeader).map((r) => r.id)).toEqual(['ListCompanies']);
  });

  test.each([
    ['GET', '/jobs', 'ListJobs', {}],
    ['GET', '/jobs/', 'ListJobs', {}],
    ['GET', '/jobs/12', 'GetJob', { id: '12' }],
    ['GET', '/jobs/12/', 'GetJob', { id: '12' }],
    ['GET', '/companies', 'ListCompanies', {}],
    ['PATCH', '/companies/5/', 'UpdateCompany', { id: '5' }],
    ['PATCH', '/companies/5', 'UpdateCompany', { id: '5' }],
  ])('%s %s → %s', (method, path, id, params) => {
    const { match } = matchRoute(method, path);
    expect(match?.route.id).toBe(id);
    expect(match?.pathParameters).toEqual(params);
  });

  test('a known path with the wrong method lists the allowed methods; unknown paths match nothing', () => {
    expect(matchRoute('POST', '/jobs/1')).toEqual({ methods: ['GET'] });
    expect(matchRoute('GET', '/jobs/1/extra')).toEqual({ methods: [] });
    expect(matchRoute('GET', '/jobs/%E0%A4%A')).toEqual({ methods: [] });
  });

  test("a page's token segment that is not valid percent-encoding still reaches the page, raw (P220)", () => {
    expect(matchRoute('GET', '/connect/%E0%A4%A').match).toMatchObject({
      route: { id: 'ConnectPage' },
      pathParameters: { token: '%E0%A4%A' },
    });
    expect(matchRoute('POST', '/connect/%').match).toMatchObject({ route: { id: 'ConnectSubmit' }, pathParameters: { token: '%' } });
    expect(matchRoute('GET', '/r/%E0/unsubscribe').match?.pathParameters).toEqual({ token: '%E0' });
    // Decodable segments are decoded as before; API routes still match nothing for a bad one.
    expect(matchRoute('GET', '/connect/a%20b').match?.pathParameters).toEqual({ token: 'a b' });
    expect(matchRoute('GET', '/companies/%E0').match).toBeUndefined();
  });

  test('both spellings of every path', () => {
    expect(pathVariants('/companies/{id}/')).toEqual(['/companies/{id}', '/companies/{id}/']);
    expect(pathVariants('/jobs')).toEqual(['/jobs', '/jobs/']);
  });
});
