/**
 * The size DynamoDB gives an item, by its "Item sizes and formats": what bounds a transaction (4 MB, P185), and
 * what a read or write costs (1 KB a write unit, 4 KB a read unit) where an emulator's own accounting is off
 * (P188). Items in the document client's form (native values).
 */
/** DynamoDB's largest item: 400 KB, 409,600 bytes as `itemBytes` counts them. */
export const ITEM_MAX_BYTES = 409_600;

/**
 * DynamoDB stores a number as base-100 digits aligned on the decimal point (two decimal digits a byte,
 * leading and trailing zeros dropped), 1 byte of exponent, and 1 byte more when it is negative; zero is 1 byte.
 */
export function numberBytes(value: number | bigint): number {
  if (!value) return 1;
  // The significant digits, and the power of ten of the first one.
  const [mantissa, exponent] =
    typeof value === 'bigint' ? [value.toString().replace(/^-/, ''), undefined] : Math.abs(value).toExponential().split('e');
  const power = exponent === undefined ? mantissa.length - 1 : Number(exponent);
  const digits = mantissa.replace('.', '').replace(/0+$/, '');
  const pairs = Math.floor(power / 2) - Math.floor((power - digits.length + 1) / 2) + 1;
  return pairs + 1 + (value < 0 ? 1 : 0);
}

function valueBytes(value: unknown): number {
  if (value === null || typeof value === 'boolean') return 1;
  if (typeof value === 'string') return Buffer.byteLength(value);
  if (typeof value === 'number' || typeof value === 'bigint') return numberBytes(value);
  if (value instanceof Uint8Array) return value.byteLength;
  if (value instanceof Set) return 3 + [...(value as Set<unknown>)].reduce<number>((sum, v) => sum + 1 + valueBytes(v), 0);
  // Lists and maps: 3 bytes, and 1 byte an element besides its name and value.
  if (Array.isArray(value)) return 3 + value.reduce<number>((sum, v) => (v === undefined ? sum : sum + 1 + valueBytes(v)), 0);
  if (typeof value === 'object') return 3 + Object.keys(value).length + itemBytes(value as Record<string, unknown>);
  return 0;
}

/**
 * The size DynamoDB gives an item (its "Item sizes and formats"): the UTF-8 bytes of each attribute's
 * name and its value's size: a string its UTF-8 bytes, a number as `numberBytes`, binary its bytes, null and
 * booleans 1 byte, lists and maps 3 bytes and 1 an element. Undefined values are not stored (the document
 * client removes them). DynamoDB Local counts strings, numbers, null, booleans, lists and maps the same, to
 * the byte.
 */
export function itemBytes(item: Record<string, unknown>): number {
  let bytes = 0;
  for (const [name, value] of Object.entries(item)) if (value !== undefined) bytes += Buffer.byteLength(name) + valueBytes(value);
  return bytes;
}
