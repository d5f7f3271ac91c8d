import fc from 'fast-check';
import { ValidationError } from '#platform/errors.js';
import { booleanParam, dateParam, enumParams, parseDateOrDateTime, positiveIntParam, queryParams } from '#platform/query-params.js';

describe('query parameters (D5)', () => {
  test('multi-value parameters are kept, single-value ones fill in', () => {
    const q = queryParams({ multiValueQueryStringParameters: { status: ['a', 'b'] }, queryStringParameters: { status: 'b', name: 'x' } });
    expect(q).toEqual({ status: ['a', 'b'], name: ['x'] });
  });

  test.each([
    ['true', true],
    ['TRUE', true],
    ['1', true],
    ['false', false],
    ['0', false],
  ])('boolean %p', (value, expected) => {
    expect(booleanParam({ flag: [value] }, 'flag')).toBe(expected);
  });

  test('a non-boolean names the parameter', () => {
    expect(() => booleanParam({ flag: ['yes'] }, 'flag')).toThrow(ValidationError);
    try {
      booleanParam({ flag: ['yes'] }, 'flag');
    } catch (error) {
      expect((error as ValidationError).errors).toEqual({ flag: [expect.any(String)] });
    }
  });

  test('empty values count as absent', () => {
    expect(booleanParam({ flag: [''] }, 'flag')).toBeUndefined();
    expect(dateParam({ d: [''] }, 'd')).toBeUndefined();
    expect(enumParams({ s: ['', 'a'] }, 's', ['a'] as const)).toEqual(['a']);
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

  test('positive integers only', () => {
    expect(positiveIntParam({ page: ['3'] }, 'page')).toBe(3);
    for (const bad of ['0', '-1', '1.0', '1e3', 'abc', '99999999999999999999']) {
      expect(() => positiveIntParam({ page: [bad] }, 'page')).toThrow(ValidationError);
    }
  });
});
