import { BadRequestError, ValidationError } from '#platform/errors.js';
import { envelope, makeCursor, pageRequest } from '#platform/pagination.js';

const options = { scope: 'company:1', limitAlias: true, filterParams: ['status'] as const };
const link = (query: Record<string, string[]>) => ({ baseUrl: 'https://api.example/prod/jobs', query });

describe('pagination (D4)', () => {
  test('defaults and caps', () => {
    expect(pageRequest({}, options)).toEqual({ page: 1, pageSize: 10, cursor: undefined });
    expect(pageRequest({ page_size: ['51'] }, options).pageSize).toBe(50);
    expect(pageRequest({ limit: ['20'] }, options).pageSize).toBe(20);
    expect(pageRequest({ limit: ['20'] }, { ...options, limitAlias: false }).pageSize).toBe(10);
    expect(() => pageRequest({ page: ['0'] }, options)).toThrow(ValidationError);
  });

  test('envelope arithmetic and links keep every parameter', () => {
    const q = { status: ['active'], page: ['2'], page_size: ['3'], foo: ['a', 'b'] };
    const page = envelope(link(q), options, { page: 2, pageSize: 3 }, { count: 7, position: { PK: 'a' } }, ['x']);
    expect(page.count).toBe(7);
    const next = new URL(page.next!);
    expect(next.href).toMatch(/^https:\/\/api\.example\/prod\/jobs\?status=active&page_size=3&foo=a&foo=b&page=3&cursor=[\w-]+$/);
    // The cursor opens for the next page, with the page's position and count.
    const cursor = next.searchParams.get('cursor')!;
    expect(pageRequest({ ...q, page: ['3'], cursor: [cursor] }, options).cursor).toEqual({ position: { PK: 'a' }, count: 7 });
    expect(page.previous).toBe('https://api.example/prod/jobs?status=active&page_size=3&foo=a&foo=b&page=1');
    const last = envelope(link(q), options, { page: 3, pageSize: 3 }, { count: 7, position: { PK: 'a' } }, ['x']);
    expect(last.next).toBeNull();
    const past = envelope(link(q), options, { page: 9, pageSize: 3 }, { count: 7 }, []);
    expect(past.next).toBeNull();
    expect(new URL(past.previous!).searchParams.get('page')).toBe('3');
  });

  test('a cursor opens only for the page, page size, filters and tenant it was made for', () => {
    const q = { status: ['active'], page_size: ['5'] };
    const token = makeCursor(q, options, 2, 5, { position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, page: ['2'], cursor: [token] }, options).cursor).toEqual({ position: { PK: 'a' }, count: 12 });
    expect(pageRequest({ ...q, page: ['3'], cursor: [token] }, options).cursor).toBeUndefined();
    expect(pageRequest({ ...q, page_size: ['6'], page: ['2'], cursor: [token] }, options).cursor).toBeUndefined();
    expect(pageRequest({ page_size: ['5'], page: ['2'], cursor: [token] }, options).cursor).toBeUndefined();
    expect(pageRequest({ ...q, page: ['2'], cursor: [token] }, { ...options, scope: 'company:2' }).cursor).toBeUndefined();
    expect(() => pageRequest({ ...q, page: ['2'], cursor: [`${token}x`] }, options)).toThrow(BadRequestError);
    expect(() => pageRequest({ ...q, page: ['2'], cursor: ['garbage'] }, options)).toThrow(BadRequestError);
  });
});
