/**
 * Small pure checks of the web formats we accept from clients and hand out again: http(s) URLs (stored
 * and shown to job seekers, so no `javascript:`, `data:`, `file:` or `mailto:`), `Host` header values
 * (they end up in page links) and media types (they end up in MIME headers and S3 metadata). The ajv
 * formats of `validation.ts` and the HTTP edge both use them, so there is one rule for each.
 */

/** Printable ASCII without space: what a URL may contain once percent-encoded. */
const URL_CHARACTERS = /^[\x21-\x7e]+$/;

/** An absolute http or https URL with a host and no user info, at most `maxLength` characters. */
export function isHttpUrl(value: string, maxLength = 2000): boolean {
  if (value.length > maxLength || !URL_CHARACTERS.test(value) || !/^https?:\/\/[^/?#]/i.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
}

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*\\.?|\\[[0-9A-Fa-f:.]{2,45}\\])(?::\\d{1,5})?$`);

/** A `Host` header value: a DNS name or an IP literal, with an optional port; nothing else. */
export function isHostHeader(value: string): boolean {
  if (value.length > 255 || !HOST.test(value)) return false;
  const port = /:(\d{1,5})$/.exec(value.replace(/^\[[^\]]*\]/, ''))?.[1];
  return port === undefined || Number(port) <= 65535;
}

/** RFC 9110 `token` characters. */
const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const QUOTED = '"(?:[\\t\\x20-\\x21\\x23-\\x5b\\x5d-\\x7e]|\\\\[\\t\\x20-\\x7e])*"';
const PARAMETER = new RegExp(`^[ \\t]*;[ \\t]*(${TOKEN})=(${TOKEN}|${QUOTED})`);
const TYPE = new RegExp(`^(${TOKEN})/(${TOKEN})`);

export interface MediaType {
  /** `type/subtype`, lower-case. */
  essence: string;
  /** Parameters in their order, names lower-case, values unquoted. */
  parameters: [string, string][];
}

/**
 * Parses a media type (RFC 9110 §8.3.1: `type/subtype *( OWS ";" OWS name=value )`, value a token or a
 * quoted string). Anything else (a line break, a stray character, an unterminated quote) is undefined.
 */
export function parseMediaType(value: string): MediaType | undefined {
  if (value.length > 255) return undefined;
  const type = TYPE.exec(value);
  if (!type) return undefined;
  const parameters: [string, string][] = [];
  let rest = value.slice(type[0].length);
  while (rest.replace(/^[ \t]+$/, '') !== '') {
    const parameter = PARAMETER.exec(rest);
    if (!parameter) return undefined;
    const raw = parameter[2];
    parameters.push([parameter[1].toLowerCase(), raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw]);
    rest = rest.slice(parameter[0].length);
  }
  return { essence: `${type[1]}/${type[2]}`.toLowerCase(), parameters };
}

const TOKEN_ONLY = new RegExp(`^${TOKEN}$`);

/** The normalised form of a media type: lower-case essence and names, `; name=value`, values quoted when needed. */
export function formatMediaType(media: MediaType): string {
  const parameters = media.parameters.map(
    ([name, value]) => `; ${name}=${TOKEN_ONLY.test(value) ? value : `"${value.replace(/(["\\])/g, '\\$1')}"`}`,
  );
  return media.essence + parameters.join('');
}

/** The normalised form of a media type text, or undefined when it is not one. */
export function normaliseMediaType(value: string): string | undefined {
  const media = parseMediaType(value);
  return media && formatMediaType(media);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;

/** A date (start of that day, UTC) or a full ISO date-time (D5), returned as a D7 timestamp; else undefined. */
export function parseDateOrDateTime(value: string): string | undefined {
  const date = DATE.exec(value);
  if (date) {
    const parsed = new Date(Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3])));
    // Reject dates that roll over, such as 2026-02-30.
    if (parsed.getUTCMonth() !== Number(date[2]) - 1 || parsed.getUTCDate() !== Number(date[3])) return undefined;
    return parsed.toISOString();
  }
  if (!DATE_TIME.test(value)) return undefined;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) return undefined;
  return new Date(ms).toISOString();
}

/** Digits naming a positive safe integer (leading zeros allowed: `007` is 7). */
export function isPositiveIntegerText(value: string): boolean {
  return /^\d+$/.test(value) && Number(value) >= 1 && Number.isSafeInteger(Number(value));
}
