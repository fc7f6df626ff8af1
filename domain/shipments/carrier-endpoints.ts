import { isIP } from 'node:net';
import { Problem } from '../kernel/index.js';
import type { Carrier } from './carrier-connection-input.js';

/**
 * Where a carrier connection may point (docs/security.md, Outbound calls): the carrier's own API
 * hosts over https, and in development and tests, explicitly, loopback addresses (the simulators).
 * The hosts are settings (`CARRIER_A_HOSTS`, `CARRIER_B_HOSTS`: GHN's and GHTK's by default). A shop chooses the address, so without this rule a connection is a way into the platform's network.
 */
export interface CarrierEndpoints {
  hosts: Record<Carrier, readonly string[]>;
  allowLoopback: boolean;
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '');
  if (host === 'localhost') return true;
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** Why `baseUrl` is not one of the carrier's endpoints, or undefined when it is. */
export function carrierEndpointRefusal(carrier: Carrier, baseUrl: string, endpoints: CarrierEndpoints): string | undefined {
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return 'not a URL';
  }
  const hosts = endpoints.hosts[carrier];
  if (url.username || url.password) return 'the address must not carry a user name or password';
  if (url.protocol === 'https:' && hosts.includes(url.hostname.toLowerCase())) return undefined;
  if (endpoints.allowLoopback && isLoopback(url.hostname) && (url.protocol === 'http:' || url.protocol === 'https:')) return undefined;
  return `a ${carrier} connection points only at the carrier's own API over https (${hosts.join(', ')})`;
}

/** 400 `validation-failed` on `baseUrl` unless it is one of the carrier's endpoints. */
export function assertCarrierEndpoint(carrier: Carrier, baseUrl: string, endpoints: CarrierEndpoints): void {
  const refusal = carrierEndpointRefusal(carrier, baseUrl, endpoints);
  if (refusal) throw new Problem('validation-failed', `baseUrl: ${refusal}`, { errors: [{ path: 'baseUrl', message: refusal }] });
}
