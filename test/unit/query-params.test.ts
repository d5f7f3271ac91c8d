import fc from 'fast-check';
import { ValidationError } from '#platform/errors.js';
import { cappedIntParam, queryParams, stringParam, stringParams } from '#platform/query-params.js';
import { isPositiveIntegerText, parseDateOrDateTime } from '#platform/web-formats.js';

describe('query parameters (D5)', () => {
  test('multi-value parameters are kept, single-value ones fill in', () => {
    const q = queryParams({ multiValueQueryStringParameters: { status: ['a', 'b'] }, queryStringParameters: { status: 'b', name: 'x' } });
    expect(q).toEqual({ status: ['a', 'b'], name: ['x'] });
  });

  test('empty values count as absent', () => {
    expect(stringParam({ s: ['', 'a'] }, 's')).toBe('a');
    expect(stringParams({ s: ['', 'a', '', 'b'] }, 's')).toEqual(['a', 'b']);
    expect(stringParam({ s: [''] }, 's')).toBeUndefined();
    expect(cappedIntParam({ page: [''] }, 'page', 50)).toBeUndefined();
  });

  test('a paging parameter is any run of digits with one not 0, capped (D4, P273)', () => {
    expect(cappedIntParam({ page: ['007'] }, 'page', 50)).toBe(7);
    expect(cappedIntParam({ page: ['99999999999999999999'] }, 'page', 50)).toBe(50);
    for (const bad of ['0', '000', '-1', '1.5', 'abc']) {
      expect(() => cappedIntParam({ page: [bad] }, 'page', 50)).toThrow(ValidationError);
    }
  });

  test.each([
    ['2026-01-31', '2026-01-31T00:00:00.000Z'],
    ['2024-02-29', '2024-02-29T00:00:00.000Z'],
    ['2026-03-01T12:30:00Z', '2026-03-01T12:30:00.000Z'],
    ['2026-03-01T12:30:00.5+02:00', '2026-03-01T10:30:00.500Z'],
    ['2026-03-01T12:30Z', '2026-03-01T12:30:00.000Z'],
  ])('date %p is read as %p', (value, expected) => {
    expect(parseDateOrDateTime(value)).toBe(expected);
  });

  test.each(['2026-02-29', '2026-13-01', '2026-1-1', '20260101', 'yesterday', '2026-01-01T25:00:00Z', '2026-01-01T10:00:00'])(
    'date %p is rejected',
    (value) => {
      expect(parseDateOrDateTime(value)).toBeUndefined();
    },
  );

  test('every calendar day round-trips as YYYY-MM-DD', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2999-12-31T00:00:00Z'), noInvalidDate: true }),
        (date) => {
          const day = date.toISOString().slice(0, 10);
          expect(parseDateOrDateTime(day)).toBe(`${day}T00:00:00.000Z`);
        },
      ),
    );
  });

  test('positive integer ids only (the `positive-integer` format of the filter schemas)', () => {
    for (const good of ['3', '007', '9007199254740991']) expect(isPositiveIntegerText(good)).toBe(true);
    for (const bad of ['0', '-1', '1.0', '1e3', 'abc', '', '9007199254740992', '99999999999999999999']) {
      expect(isPositiveIntegerText(bad)).toBe(false);
    }
  });
});
