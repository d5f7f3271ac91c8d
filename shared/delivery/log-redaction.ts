/**
 * Redaction of what an ATS answered before any of it is stored in a delivery log (issue 44, P305):
 * - every value the caller knows must not be kept (the candidate's e-mail, phone and names, the credentials we
 *   hold, Authorization-like header values we sent) is replaced wherever it appears, in any letter case, and the
 *   phone number also by its digits alone;
 * - any e-mail-shaped string, and any phone-shaped one (a `+` or separators between at least seven digits; a bare
 *   run of digits is an id and stays), is replaced too;
 * - in JSON, the value of every field whose name says token, secret, key, password, authorization, cookie or
 *   signature is replaced; in other text, `name=value` and `name: value` pairs with such names likewise, and the
 *   credential after `Bearer`/`Basic`;
 * - only then is the text cut to `EXCERPT_BYTES` (so that a cut never leaves part of a value to match).
 */

/** The stored excerpt's limit in UTF-8 bytes. */
export const EXCERPT_BYTES = 1024;

const SECRET_NAME = /token|secret|key|password|passwd|authorization|cookie|signature|credential/i;
const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+/g;
const PHONE_LIKE = /\+?\(?\d[\d\s().-]{5,}\d/g;
const SECRET_PAIR =
  /((?:[\w-]*(?:token|secret|key|password|passwd|authorization|cookie|signature|credential)[\w-]*)["']?\s*[:=]\s*["']?)([^"'&\s,;}]+)/gi;
const AUTH_SCHEME = /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{6,}/gi;

const escape = (value: string) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function redactJson(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(redactJson);
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
    for (const [name, inner] of Object.entries(value))
      out[name] = SECRET_NAME.test(name) && inner !== null && typeof inner !== 'object' ? '[redacted]' : redactJson(inner);
    return out;
  }
  return value;
}

function phoneShaped(match: string): boolean {
  const digits = match.replace(/\D/g, '');
  if (digits.length < 7) return false;
  // A date or time (2026-11-29, 2026-11-29 10:30) is not a phone number; a bare run of digits is an id.
  if (/^\d{4}-\d{2}-\d{2}/.test(match.trim())) return false;
  return match.startsWith('+') || /[\s().-]/.test(match.trim());
}

/** Known values of at least three characters, longest first (so a full name goes before its parts). */
function knownValues(values: Iterable<unknown>): string[] {
  const found = new Set<string>();
  for (const value of values) {
    if (typeof value !== 'string') continue;
    const trimmed = value.trim();
    if (trimmed.length >= 3) found.add(trimmed);
    // A phone number also as its digits alone, and as it is echoed in JSON (escaped).
    const digits = trimmed.replace(/\D/g, '');
    if (/^\+?[\d\s().-]+$/.test(trimmed) && digits.length >= 6) found.add(digits);
    const json = JSON.stringify(trimmed).slice(1, -1);
    if (json !== trimmed && json.length >= 3) found.add(json);
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/** A redacted text cut to at most `maxBytes` UTF-8 bytes. */
export function redactExcerpt(raw: string, values: Iterable<unknown>, maxBytes = EXCERPT_BYTES): string {
  let text = raw;
  try {
    text = JSON.stringify(redactJson(JSON.parse(raw)));
  } catch {
    // not JSON: the text rules below apply alone
  }
  for (const value of knownValues(values)) text = text.replace(new RegExp(escape(value), 'gi'), '[redacted]');
  text = text
    .replace(AUTH_SCHEME, '$1 [redacted]')
    .replace(SECRET_PAIR, '$1[redacted]')
    .replace(EMAIL, '[email]')
    .replace(PHONE_LIKE, (match) => (phoneShaped(match) ? '[phone]' : match));
  return cutToBytes(text, maxBytes);
}

/** The longest prefix of `text` within `maxBytes` UTF-8 bytes (never half a character). */
export function cutToBytes(text: string, maxBytes: number): string {
  if (Buffer.byteLength(text) <= maxBytes) return text;
  let end = Math.min(text.length, maxBytes);
  while (end > 0 && Buffer.byteLength(text.slice(0, end)) > maxBytes) end--;
  if (end > 0 && /[\uD800-\uDBFF]/.test(text[end - 1])) end--;
  return text.slice(0, end);
}

/**
 * The ATS's own error code in an answer, where its body has one: `error_code`, `errorCode`, `code`, an `error`
 * object's `code` or `type`, the first of `errors`' codes, or a short identifier-like `error`/`type`.
 */
export function errorCodeOf(raw: string): string | null {
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) return null;
  const record = body as Record<string, unknown>;
  const first = (value: unknown) => (Array.isArray(value) ? value[0] : value);
  const nested = (value: unknown, name: string) =>
    value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>)[name] : undefined;
  const candidates = [
    record.error_code,
    record.errorCode,
    record.code,
    nested(record.error, 'code'),
    nested(record.error, 'type'),
    nested(first(record.errors), 'code'),
    nested(first(record.errors), 'error_code'),
    record.error,
    record.type,
  ];
  for (const candidate of candidates) {
    if ((typeof candidate === 'string' || typeof candidate === 'number') && /^[A-Za-z0-9_.:-]{1,64}$/.test(String(candidate)))
      return String(candidate);
  }
  return null;
}
