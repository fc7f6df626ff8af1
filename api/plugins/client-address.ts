import ipaddr from 'ipaddr.js';

/**
 * The rate-limit bucket of a client address: an IPv4 address as it is (an IPv4-mapped IPv6 address
 * as its IPv4 form), an IPv6 address by its /64, since one subscriber usually holds a whole /64 and
 * could otherwise rotate through 2^64 addresses to dodge a per-address counter.
 */
export function clientAddressBucket(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}
