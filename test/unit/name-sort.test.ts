/**
 * The name ordering's compact sort key (P182): DynamoDB orders sort keys by their UTF-8 bytes, the list by JS
 * string order of the lower-case name (UTF-16 code units), ties by id. The key must agree for every name.
 */
import fc from 'fast-check';
import { companyNameSort } from '#companies/company-layout.js';

const utf8Order = (a: string, b: string) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const listOrder = (a: [string, number], b: [string, number]) => {
  const [x, y] = [a[0].toLowerCase(), b[0].toLowerCase()];
  return x < y ? -1 : x > y ? 1 : Math.sign(a[1] - b[1]);
};

// Names from every corner that matters: ASCII, control characters, accents, CJK, private use and astral
// characters (surrogate pairs), and prefixes of one another.
const unit = fc.oneof(
  fc.constantFrom('a', 'b', 'A', ' ', '!', '\u0000', '\u0001', '\u0002', 'é', 'ß', '\u00ff', '中', '\ud7ff', '\ue000', '\uffff', '😀', '𝔸'),
  fc.string({ unit: 'binary', maxLength: 1 }),
);
const name = fc.array(unit, { maxLength: 12 }).map((units) => units.join(''));
const id = fc.integer({ min: 1, max: 36 ** 7 - 1 });

test("the key's byte order is the list's order: lower-case name in UTF-16 order, then id", () => {
  fc.assert(
    fc.property(fc.tuple(name, id), fc.tuple(name, id), (a, b) => {
      expect(Math.sign(utf8Order(companyNameSort(...a), companyNameSort(...b)))).toBe(listOrder(a, b));
    }),
    { numRuns: 5000 },
  );
});

test('a prefix sorts before the names it begins, and a plain name costs a byte a character', () => {
  // (An astral character is a surrogate pair: in UTF-16 order it comes before U+E000.)
  const ordered = ['ab', 'ab\u0000', 'ab\u0001', 'ab ', 'abc', 'abé', 'ab😀', 'ab\ue000', 'ab\uffff'];
  const keys = ordered.map((n, i) => companyNameSort(n, i + 1));
  expect([...keys].sort(utf8Order)).toEqual(keys);
  expect(Buffer.byteLength(companyNameSort('Common Trading 0001', 42))).toBe(19 + 2 + 7);
});

test('a name of 255 characters of the widest kind keeps the key under the 1 KB a sort key may hold', () => {
  for (const wide of ['😀'.repeat(128), '\uffff'.repeat(255), '中'.repeat(255)])
    expect(Buffer.byteLength(companyNameSort(wide, 36 ** 7 - 1))).toBeLessThanOrEqual(1024);
});
