/**
 * The SSRF address checks of webhook endpoints (shared/platform/addresses.ts): every refused range refuses
 * every address in it, in every spelling (IPv4, IPv4-mapped IPv6 in dotted and hex form, NAT64), and public
 * addresses pass. Node's own BlockList is the independent oracle for range membership.
 */
import { BlockList } from 'node:net';
import fc from 'fast-check';
import { REFUSED_IPV4, REFUSED_IPV6, isLoopbackAddress, isPublicAddress, refusedAddress, resolveChecked } from '#platform/addresses.js';

const v4Oracle = new BlockList();
for (const cidr of REFUSED_IPV4) {
  const [net, prefix] = cidr.split('/');
  v4Oracle.addSubnet(net, Number(prefix), 'ipv4');
}

const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const dotted = (o: number[]) => o.join('.');
const hexMapped = (o: number[]) => `::ffff:${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;

/** A random address inside a CIDR range (IPv4 or IPv6), as text. */
function inRange(cidr: string): fc.Arbitrary<string> {
  const [net, prefixText] = cidr.split('/');
  const prefix = Number(prefixText);
  const six = net.includes(':');
  const width = six ? 128 : 32;
  const base = six ? v6ToBigInt(net) : BigInt(net.split('.').reduce((n, o) => n * 256 + Number(o), 0));
  const hostBits = BigInt(width - prefix);
  return fc.bigInt({ min: 0n, max: (1n << hostBits) - 1n }).map((host) => {
    const value = ((base >> hostBits) << hostBits) | host;
    if (!six) return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 255n)).join('.');
    return Array.from({ length: 8 }, (_, i) => ((value >> BigInt((7 - i) * 16)) & 0xffffn).toString(16)).join(':');
  });
}

function v6ToBigInt(text: string): bigint {
  const [head, tail = ''] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = text.includes('::') ? [...h, ...Array<string>(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

describe('IPv4', () => {
  test('an address is public exactly when no refused range holds it (BlockList as the oracle)', () => {
    fc.assert(
      fc.property(octets, (o) => isPublicAddress(dotted(o)) === !v4Oracle.check(dotted(o), 'ipv4')),
      { numRuns: 5000 },
    );
  });

  test.each(REFUSED_IPV4)('every address in %s is refused', (cidr) => {
    fc.assert(
      fc.property(inRange(cidr), (address) => !isPublicAddress(address)),
      { numRuns: 300 },
    );
  });

  test('well-known cases', () => {
    for (const address of [
      '127.0.0.1',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '224.0.0.1',
      '198.18.0.1',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
    for (const address of ['8.8.8.8', '1.1.1.1', '172.15.255.255', '172.32.0.0', '100.63.255.255', '100.128.0.0', '93.184.216.34'])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });

  test('not addresses are not public', () => {
    for (const text of ['', '1.2.3', '1.2.3.4.5', '256.1.1.1', '01.2.3.4', 'localhost', 'example.com', '1.2.3.4/8', ' 8.8.8.8'])
      expect([text, isPublicAddress(text)]).toEqual([text, false]);
  });
});

describe('IPv6', () => {
  test('an IPv4-mapped address (dotted or hex) is judged as its IPv4 address', () => {
    fc.assert(
      fc.property(octets, (o) => {
        const expected = isPublicAddress(dotted(o));
        return isPublicAddress(`::ffff:${dotted(o)}`) === expected && isPublicAddress(hexMapped(o)) === expected;
      }),
      { numRuns: 3000 },
    );
  });

  test('a NAT64 address (64:ff9b::/96) is judged as its IPv4 address', () => {
    fc.assert(
      fc.property(octets, (o) => isPublicAddress(`64:ff9b::${dotted(o)}`) === isPublicAddress(dotted(o))),
      { numRuns: 2000 },
    );
  });

  test.each(REFUSED_IPV6)('every address in %s is refused', (cidr) => {
    fc.assert(
      fc.property(inRange(cidr), (address) => !isPublicAddress(address)),
      { numRuns: 300 },
    );
  });

  test('global unicast outside the refused ranges is public', () => {
    fc.assert(
      fc.property(inRange('2600::/12'), (address) => isPublicAddress(address)),
      { numRuns: 1000 },
    );
    for (const address of ['2606:4700:4700::1111', '2a00:1450:4001:82a::200e', '[2001:4860:4860::8888]'])
      expect([address, isPublicAddress(address)]).toEqual([address, true]);
  });

  test('well-known refused cases, in several spellings', () => {
    for (const address of [
      '::',
      '::1',
      '0:0:0:0:0:0:0:1',
      '[::1]',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '::127.0.0.1',
      '::8.8.8.8',
      'fe80::1',
      'fe80::1%eth0',
      'fd00:ec2::254',
      'fc00::1',
      'ff02::1',
      '2001:db8::1',
      '2002:c0a8:101::1',
      '2001::1',
      '64:ff9b::10.0.0.1',
      '64:ff9b:1::1',
    ])
      expect([address, isPublicAddress(address)]).toEqual([address, false]);
  });

  test('malformed IPv6 is not public', () => {
    for (const text of ['1::2::3', '12345::1', '::ffff:1.2.3', 'g::1', '1:2:3:4:5:6:7:8:9', ':::1'])
      expect([text, isPublicAddress(text)]).toEqual([text, false]);
  });
});

describe('loopback allowance', () => {
  test('only loopback addresses pass the allowance; other private ranges stay refused', () => {
    for (const address of ['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1']) {
      expect(isLoopbackAddress(address)).toBe(true);
      expect(refusedAddress(address, { allowLoopback: true })).toBeUndefined();
      expect(refusedAddress(address, { allowLoopback: false })).toMatch(/not a public address/);
    }
    for (const address of ['10.0.0.1', '169.254.169.254', 'fe80::1', '::ffff:10.0.0.1'])
      expect(refusedAddress(address, { allowLoopback: true })).toMatch(/not a public address/);
  });

  test('resolving checks literals and names', async () => {
    await expect(resolveChecked('127.0.0.1', { allowLoopback: false })).rejects.toThrow(/not a public address/);
    await expect(resolveChecked('[::1]', { allowLoopback: true })).resolves.toEqual([{ address: '::1', family: 6 }]);
    await expect(resolveChecked('localhost', { allowLoopback: false })).rejects.toThrow(/localhost resolves to .* not a public address/);
    await expect(resolveChecked('8.8.8.8', { allowLoopback: false })).resolves.toEqual([{ address: '8.8.8.8', family: 4 }]);
  });
});
