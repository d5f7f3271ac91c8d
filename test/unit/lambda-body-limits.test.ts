import fc from 'fast-check';
import { atLeastPattern, BODY_LIMIT_RESPONSES, LAMBDA_INVOKE_LIMIT_BYTES, LAMBDA_PATH_BODY_LIMITS } from '../../lib/lambda-body-limits.js';

describe('atLeastPattern (the web ACL’s Content-Length rule)', () => {
  test('matches exactly the decimal numbers at or above the limit, leading zeros included', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2_000_000_000 }),
        fc.integer({ min: 0, max: 4_000_000_000 }),
        fc.nat(3),
        (min, value, zeros) => {
          const pattern = new RegExp(atLeastPattern(min));
          expect(pattern.test('0'.repeat(zeros) + String(value))).toBe(value >= min);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('at the limits themselves', () => {
    for (const limit of Object.values(LAMBDA_PATH_BODY_LIMITS)) {
      const pattern = new RegExp(atLeastPattern(limit));
      expect([limit - 1, limit, limit + 1, 99_999_999, 1_000_000_000].map((n) => pattern.test(String(n)))).toEqual([
        false,
        true,
        true,
        true,
        true,
      ]);
      for (const text of ['', ' ', 'abc', '-6000000', '6e6', '6000000.0']) expect(pattern.test(text)).toBe(false);
    }
  });

  test('the limits leave room for the event around the body within one invocation', () => {
    // Binary bodies travel Base64-encoded: 4/3 of the body, plus at least 200 kB for headers and request context.
    expect(Math.ceil(LAMBDA_PATH_BODY_LIMITS.binary / 3) * 4 + 200_000).toBeLessThan(LAMBDA_INVOKE_LIMIT_BYTES);
    // JSON travels as a JSON string: 10% for escaping, plus the same 200 kB.
    expect(LAMBDA_PATH_BODY_LIMITS.text * 1.1 + 200_000).toBeLessThan(LAMBDA_INVOKE_LIMIT_BYTES);
  });

  test('the answers are in the D2 shape and say where the limit is and why', () => {
    for (const response of Object.values(BODY_LIMIT_RESPONSES)) {
      expect(Object.keys(response.body).sort()).toEqual(['code', 'detail']);
    }
    expect(BODY_LIMIT_RESPONSES['payload-too-large'].body.detail).toMatch(/5\.5 MB.*Lambda.*6 MB/);
    expect(BODY_LIMIT_RESPONSES['payload-too-large-binary'].body.detail).toMatch(/4\.5 MB.*Base64.*6 MB/);
  });
});
