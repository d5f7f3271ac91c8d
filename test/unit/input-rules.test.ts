import { principalFromContext, principalToContext } from '#companies/api-keys.js';
import { isHostHeader, isHttpUrl, normaliseMediaType } from '#platform/web-formats.js';

describe('authorizer context (issue 10, defect 10)', () => {
  test('the two scopes the authorizer makes are read back as they were', () => {
    const partner = { keyId: 1, scope: 'partner' as const, partnerId: 2 };
    const company = { keyId: 3, scope: 'company' as const, partnerId: 2, companyId: 4 };
    expect(principalFromContext(principalToContext(partner))).toEqual(partner);
    expect(principalFromContext(principalToContext(company))).toEqual(company);
    // API Gateway passes the context values on as strings.
    expect(principalFromContext({ keyId: '3', scope: 'company', partnerId: '2', companyId: '4' })).toEqual(company);
  });

  test.each([
    { keyId: 1, scope: 'admin', partnerId: 2 },
    { keyId: 1, scope: 'Partner', partnerId: 2 },
    { keyId: 1, scope: '', partnerId: 2 },
    { keyId: 1, partnerId: 2 },
    { keyId: 1, scope: 'company', partnerId: 2 },
    { keyId: 1, scope: 'partner', partnerId: 2, companyId: 5 },
    { keyId: 1, scope: 'partner', partnerId: 'x' },
    { keyId: 'NaN', scope: 'partner', partnerId: 2 },
    { keyId: 1, scope: 'partner', partnerId: 0 },
    { keyId: 1, scope: 'company', partnerId: 2, companyId: '1e3' },
  ])('anything else is refused: %j', (context) => {
    expect(principalFromContext(context as Record<string, unknown>)).toBeUndefined();
  });
});

describe('web formats', () => {
  test.each(['https://example.com', 'http://example.com:8080/a/b?c=d#e', 'https://xn--bcher-kva.example/%20'])(
    '%s is an http(s) URL',
    (url) => {
      expect(isHttpUrl(url)).toBe(true);
    },
  );
  test.each([
    'javascript:alert(1)',
    'data:,x',
    'file:///etc/passwd',
    'mailto:a@b.example',
    'ftp://example.com',
    'https://',
    'https:///x',
    'https://a b.example',
    'https://u:p@example.com',
    '//example.com',
    'https://example.com/\n',
  ])('%j is not', (url) => expect(isHttpUrl(url)).toBe(false));
  test('host headers', () => {
    for (const ok of ['example.com', 'localhost:3000', '127.0.0.1:80', '[::1]:3000', 'a-b.example.']) expect(isHostHeader(ok)).toBe(true);
    for (const bad of ['[', '', 'a b', 'example.com/x', 'example.com:99999', 'user@example.com', '-a.example', 'javascript:x'])
      expect(isHostHeader(bad)).toBe(false);
  });
  test('media types: normalised, or undefined when malformed', () => {
    expect(normaliseMediaType('Application/PDF')).toBe('application/pdf');
    expect(normaliseMediaType('text/plain ; Charset=UTF-8; name="a b"')).toBe('text/plain; charset=UTF-8; name="a b"');
    for (const bad of ['application/pdf; x=1\r\nContent-Type: text/html', 'application/pdf;', 'pdf', 'a/b; x="1', 'a/b c', 'a/b; =1'])
      expect(normaliseMediaType(bad)).toBeUndefined();
  });
});
