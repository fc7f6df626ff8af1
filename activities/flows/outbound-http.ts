import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
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

/** Only public unicast addresses are reachable, loopback too when the policy allows it. */
export function isAddressAllowed(address: string, policy: OutboundPolicy): boolean {
  if (!ipaddr.isValid(address)) return false;
  const range = ipaddr.process(address).range();
  return range === 'unicast' || (policy.allowLoopback && range === 'loopback');
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
function guardedLookup(policy: OutboundPolicy): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
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

/** The undici dispatcher every outbound delivery uses. */
export function createOutboundAgent(policy: OutboundPolicy): Agent {
  // Built once: a `ca` list in the connect options would be parsed again on every new TLS connection.
  const secureContext = policy.extraCaPem ? createSecureContext({ ca: [...rootCertificates, policy.extraCaPem] }) : undefined;
  return new Agent({
    connect: {
      lookup: guardedLookup(policy),
      timeout: CONNECT_TIMEOUT_MS,
      ...(secureContext ? { secureContext } : {}),
    },
    connections: 64,
  });
}
