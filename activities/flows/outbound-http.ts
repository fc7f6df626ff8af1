import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { Agent } from 'undici';
import { CONNECT_TIMEOUT_MS } from '../../domain/flows/index.js';

export interface OutboundPolicy {
  /** Development and tests only: lets deliveries reach 127.0.0.0/8 and ::1. */
  allowLoopback: boolean;
  /** Development and tests only: one more CA to trust (PEM), beside the system's roots. */
  extraCaPem?: string;
}

/**
 * A destination Shopflow will not send to. Its message reaches shop admins (delivery history,
 * test-run): it names what they wrote, never the internal address a name resolved to.
 */
export class DestinationRefused extends Error {}

const NOT_ALLOWED = 'the destination is not allowed: webhooks go only to public internet addresses';

/**
 * Only public unicast addresses are reachable, loopback too when the policy allows it. Every IPv4
 * spelling counts as its address (`2130706433`, `0x7f000001`, `017700000001` are 127.0.0.1), and an
 * IPv6 address that carries an IPv4 one is judged by it: IPv4-mapped, NAT64 in the well-known prefix
 * `64:ff9b::/96`, 6to4 `2002::/16`. Other translation ranges (local-use NAT64 `64:ff9b:1::/48`,
 * Teredo) and `::`, `0.0.0.0` are refused.
 */
export function isAddressAllowed(address: string, policy: OutboundPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.process(address);
  const range = parsed.kind() === 'ipv6' ? (embeddedIPv4(parsed as ipaddr.IPv6)?.range() ?? parsed.range()) : parsed.range();
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
}

/** The IPv4 address a NAT64 (`64:ff9b::/96`) or 6to4 (`2002::/16`) address carries. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const parts = address.parts;
  const fromWords = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 255, low >> 8, low & 255]);
  if (address.match(ipaddr.IPv6.parse('64:ff9b::'), 96)) return fromWords(parts[6]!, parts[7]!);
  if (address.range() === '6to4') return fromWords(parts[1]!, parts[2]!);
  return undefined;
}

/** Refuses anything but an https URL, and an IP literal outside the allowed ranges. */
export function assertDestinationAllowed(url: string, policy: OutboundPolicy): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new DestinationRefused(`not a URL: ${url}`);
  }
  if (parsed.protocol !== 'https:') throw new DestinationRefused('only https destinations are allowed');
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) && !isAddressAllowed(host, policy)) throw new DestinationRefused(NOT_ALLOWED);
  return parsed;
}

/**
 * DNS resolved by the sender and checked at connect time, so a name that later resolves to a
 * private address (DNS rebinding) is refused on the very connection that would use it.
 */
function guardedLookup(policy: OutboundPolicy, resolve: Resolver): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const refused = addresses.find((entry) => !isAddressAllowed(entry.address, policy));
      if (refused) return callback(new DestinationRefused(NOT_ALLOWED), '', 0);
      if (options.all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses);
      const first = addresses[0];
      if (!first) return callback(new DestinationRefused(`${hostname} has no address`), '', 0);
      callback(null, first.address, first.family);
    });
  };
}

/** How names are resolved: `dns.lookup` with `all: true` (tests put a local resolver in its place). */
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The undici dispatcher every outbound delivery uses. It follows no redirect (undici follows none
 * without a redirect interceptor, and none is added): a 3xx is the receiver's answer, retried.
 */
export function createOutboundAgent(policy: OutboundPolicy, resolve: Resolver = dnsLookup): Agent {
  // Built once: a `ca` list in the connect options would be parsed again on every new TLS connection.
  const secureContext = policy.extraCaPem ? createSecureContext({ ca: [...rootCertificates, policy.extraCaPem] }) : undefined;
  return new Agent({
    connect: {
      lookup: guardedLookup(policy, resolve),
      timeout: CONNECT_TIMEOUT_MS,
      ...(secureContext ? { secureContext } : {}),
    },
    connections: 64,
  });
}
