// Where shops' webhooks may be sent. A webhook URL is set by a shop's operator but fetched by
// the daemon, from inside its network: aimed at 169.254.169.254 or 127.0.0.1 it would make
// waybill read cloud credentials or post to itself. So internal destinations are refused,
// when a URL is set (its literal address and name) and again at each delivery (every address
// the name resolves to, checked before connecting: a name that turned internal since, DNS
// rebinding). The operator lists exceptions in WAYBILL_WEBHOOK_ALLOW_PRIVATE.
import dns from 'node:dns';
import type { LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { OutboundError, type DestinationGuard } from './outbound-http.ts';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** Refused ranges and why (the list docs/api.md shows). */
export const INTERNAL_RANGES: readonly (readonly [cidr: string, what: string])[] = [
  ['0.0.0.0/8', 'unspecified ("this network")'],
  ['10.0.0.0/8', 'private'],
  ['100.64.0.0/10', 'shared address space (CGNAT; Alibaba Cloud metadata 100.100.100.200)'],
  ['127.0.0.0/8', 'loopback'],
  ['169.254.0.0/16', 'link-local (cloud metadata 169.254.169.254)'],
  ['172.16.0.0/12', 'private'],
  ['192.0.0.0/24', 'IETF protocol assignments (Oracle Cloud metadata 192.0.0.192)'],
  ['192.0.2.0/24', 'documentation'],
  ['192.88.99.0/24', '6to4 relay'],
  ['192.168.0.0/16', 'private'],
  ['198.18.0.0/15', 'benchmarking'],
  ['198.51.100.0/24', 'documentation'],
  ['203.0.113.0/24', 'documentation'],
  ['224.0.0.0/4', 'multicast'],
  ['240.0.0.0/4', 'reserved (255.255.255.255 broadcast included)'],
  ['::/96', 'unspecified, loopback and IPv4-compatible (::, ::1)'],
  ['64:ff9b:1::/48', 'local-use NAT64'],
  ['100::/64', 'discard-only'],
  ['2001::/32', 'Teredo'],
  ['2001:db8::/32', 'documentation'],
  ['2002::/16', '6to4'],
  ['fc00::/7', 'unique local (AWS metadata fd00:ec2::254)'],
  ['fe80::/10', 'link-local'],
  ['fec0::/10', 'site-local (deprecated)'],
  ['ff00::/8', 'multicast'],
];
// IPv4-mapped (::ffff:a.b.c.d) and NAT64 (64:ff9b::a.b.c.d) addresses are judged by the IPv4
// address they carry.

const RANGES = INTERNAL_RANGES.map(([cidr, what]) => ({ cidr, what, range: ipaddr.parseCIDR(cidr) }));
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** The address an IP stands for: IPv4 inside IPv4-mapped and NAT64 IPv6 addresses. */
function canonical(ip: Address): Address {
  if (ip.kind() !== 'ipv6') return ip;
  const v6 = ip as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address();
  if (v6.match(NAT64)) return ipaddr.fromByteArray(v6.toByteArray().slice(12));
  return v6;
}

const parseIp = (text: string): Address | null => {
  const bare = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  return ipaddr.isValid(bare) && /^[0-9a-f:.]+$/i.test(bare) ? canonical(ipaddr.parse(bare)) : null;
};

/** The refused range an address is in ("127.0.0.0/8 loopback"), or null for a public address. */
export function internalRange(address: string): string | null {
  const ip = parseIp(address);
  if (ip === null) return null;
  const hit = RANGES.find((r) => r.range[0].kind() === ip.kind() && ip.match(r.range));
  return hit === undefined ? null : `${hit.cidr} ${hit.what}`;
}

const normalName = (host: string): string => host.toLowerCase().replace(/\.$/, '');

export class DestinationPolicy implements DestinationGuard {
  readonly #names = new Set<string>();
  readonly #ranges: [Address, number][] = [];

  /** `allow`: host names, IP addresses and CIDRs that are allowed although internal. */
  constructor(allow: readonly string[] = []) {
    for (const entry of allow) {
      if (entry.includes('/')) {
        const [ip, bits] = ipaddr.parseCIDR(entry);
        this.#ranges.push([canonical(ip), ip.kind() === 'ipv6' && canonical(ip).kind() === 'ipv4' ? bits - 96 : bits]);
      } else {
        const ip = parseIp(entry);
        if (ip === null) this.#names.add(normalName(entry));
        else this.#ranges.push([ip, ip.kind() === 'ipv4' ? 32 : 128]);
      }
    }
  }

  #allowedIp(address: string): boolean {
    const ip = parseIp(address);
    return ip !== null && this.#ranges.some(([net, bits]) => net.kind() === ip.kind() && ip.match(net, bits));
  }

  /**
   * Why a webhook URL is refused when it is set, or null when it may be. Checks what the URL
   * itself says: scheme, credentials, a literal address, a name that is loopback by definition
   * (localhost). Other names are checked on their addresses at each delivery (lookup).
   */
  refusal(text: string): string | null {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      return 'is not a valid URL';
    }
    const why = this.#urlRefusal(url);
    if (why !== null || this.#names.has(normalName(url.hostname))) return why;
    const name = normalName(url.hostname);
    if (name === 'localhost' || name.endsWith('.localhost'))
      return `points at ${name}, a loopback name; list it in WAYBILL_WEBHOOK_ALLOW_PRIVATE to allow it`;
    return null;
  }

  /** At delivery: the URL's scheme, credentials and literal address (names go through lookup). */
  checkUrl(url: URL): void {
    const why = this.#urlRefusal(url);
    if (why !== null) throw new OutboundError('destination_refused', `the webhook URL ${why}`);
  }

  #urlRefusal(url: URL): string | null {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must start with http:// or https://';
    if (url.username !== '' || url.password !== '')
      return 'must not carry credentials (user:password@); the webhook signature authenticates waybill';
    const host = url.hostname;
    if (this.#names.has(normalName(host))) return null;
    const range = internalRange(host);
    if (range === null || this.#allowedIp(host)) return null;
    return `points at an internal address (${range}); list it in WAYBILL_WEBHOOK_ALLOW_PRIVATE to allow it`;
  }

  /** dns.lookup, then every address checked: one internal address (not allowed) refuses the call. */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, '', 0);
      if (addresses.length === 0) return callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0);
      if (!this.#names.has(normalName(hostname))) {
        for (const a of addresses) {
          const range = internalRange(a.address);
          if (range === null || this.#allowedIp(a.address)) continue;
          const refused = new OutboundError(
            'destination_refused',
            `${hostname} resolves to ${a.address}, an internal address (${range}); not connected. List it in WAYBILL_WEBHOOK_ALLOW_PRIVATE to allow it`,
          );
          return callback(refused as NodeJS.ErrnoException, '', 0);
        }
      }
      if (options.all === true) return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
