// Which addresses the service may send requests to (CONTRACT.md "Outbound requests"): only
// public unicast ones, unless OUTBOUND_ALLOWLIST covers them. IPv4 embedded in IPv6
// (mapped, NAT64, the deprecated IPv4-compatible ::/96) is judged as the IPv4 it carries.
import ipaddr from 'ipaddr.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;
export type Cidr = [Address, number];

/** Parses the OUTBOUND_ALLOWLIST entries; throws on a malformed one. */
export const parseAllowlist = (cidrs: string[]): Cidr[] =>
  cidrs.map((c) => ipaddr.parseCIDR(c.trim()) as Cidr);

/** IPv6 ranges whose last 32 bits are an IPv4 address to judge instead. */
const EMBEDS_IPV4 = new Set(['ipv4Mapped', 'rfc6052', 'rfc6145']);

/**
 * IPv4-compatible addresses (::a.b.c.d, RFC 4291 2.5.5.1): ipaddr.js calls them unicast, and
 * a stack that still maps them would reach the IPv4 inside (::7f00:1 is 127.0.0.1). `::` and
 * `::1` are in the same /96 but have ranges of their own, judged as such.
 */
const [IPV4_COMPATIBLE, IPV4_COMPATIBLE_BITS] = ipaddr.parseCIDR('::/96') as [ipaddr.IPv6, number];
const isIpv4Compatible = (addr: ipaddr.IPv6) =>
  addr.range() === 'unicast' && addr.match(IPV4_COMPATIBLE, IPV4_COMPATIBLE_BITS);

function embeddedIpv4(addr: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = addr.toByteArray().slice(-4);
  return new ipaddr.IPv4(bytes);
}

/** True for a public unicast address; every special-purpose range is refused. */
export function isPublicAddress(ip: string): boolean {
  if (!ipaddr.isValid(ip)) return false;
  const addr = ipaddr.parse(ip);
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast';
  const range = addr.range();
  if (EMBEDS_IPV4.has(range) || isIpv4Compatible(addr as ipaddr.IPv6))
    return embeddedIpv4(addr as ipaddr.IPv6).range() === 'unicast';
  return range === 'unicast';
}

function inAllowlist(ip: string, allowlist: Cidr[]): boolean {
  let addr: Address = ipaddr.parse(ip);
  if (addr.kind() === 'ipv6' && (addr as ipaddr.IPv6).isIPv4MappedAddress())
    addr = (addr as ipaddr.IPv6).toIPv4Address();
  return allowlist.some(([range, bits]) => addr.kind() === range.kind() && addr.match(range, bits));
}

/** May the service connect to this address? */
export const isAllowedAddress = (ip: string, allowlist: Cidr[]): boolean =>
  ipaddr.isValid(ip) && (inAllowlist(ip, allowlist) || isPublicAddress(ip));
