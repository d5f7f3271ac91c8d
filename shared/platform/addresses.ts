/**
 * Which IP addresses the service may send a request to on a partner's behalf (webhook endpoints, D19),
 * against server-side request forgery: only globally routable unicast addresses. Refused are, for IPv4 and
 * IPv6 alike, "this network", private (RFC 1918), carrier-grade NAT, loopback, link-local (which holds the
 * instance metadata endpoint), unique-local, site-local, documentation, benchmarking, protocol-assignment,
 * reserved, multicast and broadcast ranges, and every IPv6 form that embeds an IPv4 address (IPv4-mapped,
 * IPv4-compatible, NAT64, 6to4, Teredo) when that IPv4 address is refused, or outright where the embedded
 * address is not checkable.
 *
 * A name is resolved and every address it resolves to must pass; the connection then goes to a checked
 * address (`checkedLookup`), so a DNS answer that changes between the check and the connect (rebinding)
 * cannot steer the request elsewhere.
 */
import { lookup as dnsLookup } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';

type Range = { bytes: number[]; prefix: number };

function v4(text: string): number[] | undefined {
  const parts = text.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.map(Number);
}

/** The 16 bytes of an IPv6 address (with `::` and an optional trailing dotted IPv4), or undefined. */
function v6(text: string): number[] | undefined {
  if (text.includes('%')) return undefined; // zone ids (fe80::1%eth0) are link-local by nature
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const four = v4(dotted[2]);
    if (!four) return undefined;
    text = `${dotted[1]}${((four[0] << 8) | four[1]).toString(16)}:${((four[2] << 8) | four[3]).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groups = (s: string) => (s === '' ? [] : s.split(':'));
  const head = groups(halves[0]);
  const rest = halves.length === 2 ? groups(halves[1]) : [];
  if (![...head, ...rest].every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  const missing = 8 - head.length - rest.length;
  if (halves.length === 2 ? missing < 1 : missing !== 0) return undefined;
  const words = [...head, ...Array<string>(missing).fill('0'), ...rest].map((g) => parseInt(g, 16));
  return words.flatMap((w) => [w >> 8, w & 0xff]);
}

function range(cidr: string): Range {
  const [address, prefix] = cidr.split('/');
  const bytes = address.includes(':') ? v6(address) : v4(address);
  if (!bytes) throw new Error(`bad range ${cidr}`);
  return { bytes, prefix: Number(prefix) };
}

function within(bytes: number[], r: Range): boolean {
  if (bytes.length !== r.bytes.length) return false;
  for (let bit = 0; bit < r.prefix; bit += 8) {
    const bits = Math.min(8, r.prefix - bit);
    const mask = (0xff << (8 - bits)) & 0xff;
    if ((bytes[bit / 8] & mask) !== (r.bytes[bit / 8] & mask)) return false;
  }
  return true;
}

/** IPv4 ranges that are not globally reachable unicast (IANA special-purpose registry, plus multicast). */
export const REFUSED_IPV4 = [
  '0.0.0.0/8', // "this network"
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (instance metadata)
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast (deprecated)
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, and the broadcast address
] as const;

/** IPv6 ranges refused outright (the IPv4-embedding forms are handled by their IPv4 address). */
export const REFUSED_IPV6 = [
  '::/96', // unspecified, loopback (::1) and the deprecated IPv4-compatible form
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard-only
  '2001::/23', // IETF protocol assignments (Teredo 2001::/32 among them)
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (embeds an IPv4 address that the relay would reach)
  '3fff::/20', // documentation
  '5f00::/16', // segment routing
  'fc00::/7', // unique-local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
] as const;

const refusedV4 = REFUSED_IPV4.map(range);
const refusedV6 = REFUSED_IPV6.map(range);
/** IPv6 forms carrying an IPv4 address in their last 32 bits, checked as that IPv4 address. */
const embedsV4 = ['::ffff:0:0/96', '64:ff9b::/96', '::ffff:0:0:0/96'].map(range);

/** Whether `address` (an IPv4 or IPv6 literal) is a globally routable unicast address we may connect to. */
export function isPublicAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  const four = isIP(plain) === 4 ? v4(plain) : undefined;
  if (four) return !refusedV4.some((r) => within(four, r));
  const six = isIP(plain) === 6 ? v6(plain) : undefined;
  if (!six) return false;
  if (embedsV4.some((r) => within(six, r))) return isPublicAddress(six.slice(12).join('.'));
  return !refusedV6.some((r) => within(six, r));
}

/** Whether `address` is a loopback address (127.0.0.0/8, ::1, or IPv4-mapped loopback). */
export function isLoopbackAddress(address: string): boolean {
  const plain = address.replace(/^\[|\]$/g, '');
  if (isIP(plain) === 4) return plain.startsWith('127.');
  const six = isIP(plain) === 6 ? v6(plain) : undefined;
  if (!six) return false;
  if (six.slice(0, 15).every((b) => b === 0) && six[15] === 1) return true;
  return within(six, range('::ffff:0:0/96')) && six[12] === 127;
}

export interface AddressPolicy {
  /** Also allow loopback addresses (tests and local runs with `WEBHOOK_ALLOW_LOOPBACK_HTTP=true`). */
  allowLoopback: boolean;
}

/** Why `address` may not be connected to, or undefined when it may. */
export function refusedAddress(address: string, policy: AddressPolicy): string | undefined {
  if (isPublicAddress(address)) return undefined;
  if (policy.allowLoopback && isLoopbackAddress(address)) return undefined;
  return `${address} is not a public address`;
}

/** Thrown when a host resolves to an address the policy refuses (or does not resolve). */
export class RefusedAddressError extends Error {
  constructor(
    reason: string,
    /** The name did not resolve at all (rather than to a refused address). */
    readonly unresolved = false,
  ) {
    super(reason);
    this.name = 'RefusedAddressError';
  }
}

/** Resolves `host` (a name or an IP literal) and checks every address; resolves to the checked addresses. */
export function resolveChecked(host: string, policy: AddressPolicy): Promise<{ address: string; family: number }[]> {
  const plain = host.replace(/^\[|\]$/g, '');
  return new Promise((resolve, reject) => {
    if (isIP(plain)) {
      const reason = refusedAddress(plain, policy);
      if (reason) reject(new RefusedAddressError(reason));
      else resolve([{ address: plain, family: isIP(plain) }]);
      return;
    }
    dnsLookup(plain, { all: true, verbatim: true }, (error, addresses) => {
      if (error || !addresses.length) return reject(new RefusedAddressError(`${plain} does not resolve`, true));
      const refused = addresses.map((a) => refusedAddress(a.address, policy)).find(Boolean);
      if (refused) return reject(new RefusedAddressError(`${plain} resolves to ${refused.replace(/ is not/, ', which is not')}`));
      resolve(addresses);
    });
  });
}

/**
 * A `lookup` for `http.request`/`https.request`: resolves, refuses the whole name when any address is
 * refused, and hands the socket only checked addresses, so the connection goes where the check looked.
 */
export function checkedLookup(policy: AddressPolicy): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    resolveChecked(hostname, policy).then(
      (addresses) => {
        if (options?.all) callback(null, addresses);
        else callback(null, addresses[0].address, addresses[0].family);
      },
      (error: Error) => callback(error),
    );
  }) as unknown as LookupFunction;
}
