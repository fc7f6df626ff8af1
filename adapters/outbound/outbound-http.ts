import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { createSecureContext, rootCertificates } from 'node:tls';
import ipaddr from 'ipaddr.js';
import { readFileSync } from 'node:fs';
import { Agent, buildConnector, type Dispatcher } from 'undici';
import type { Settings } from '../../config/settings.js';
import { CONNECT_TIMEOUT_MS } from '../../domain/flows/index.js';

/**
 * The one policy of every call Shopflow makes to an address it did not write itself: webhook
 * deliveries, carrier connections and the chat platform (docs/security.md, Outbound calls).
 */
export interface OutboundPolicy {
  /** Development and tests only: lets calls reach 127.0.0.0/8 and ::1 (the local receiver and the simulators). */
  allowLoopback: boolean;
  /** Development and tests only: one more CA to trust (PEM), beside the system's roots. */
  extraCaPem?: string;
}

/** The policy of the settings: loopback and an extra CA only where development and tests allow them. */
export function outboundPolicyFrom(settings: Pick<Settings, 'OUTBOUND_ALLOW_LOOPBACK' | 'WEBHOOK_EXTRA_CA_FILE'>): OutboundPolicy {
  return {
    allowLoopback: settings.OUTBOUND_ALLOW_LOOPBACK,
    ...(settings.WEBHOOK_EXTRA_CA_FILE ? { extraCaPem: readFileSync(settings.WEBHOOK_EXTRA_CA_FILE, 'utf8') } : {}),
  };
}

/**
 * A destination Shopflow will not send to. Its message reaches shop admins (delivery history,
 * test-run): it names what they wrote, never the internal address a name resolved to.
 */
export class DestinationRefused extends Error {}

const NOT_ALLOWED = 'the destination is not allowed: only public internet addresses are reachable';

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
 * The undici dispatcher every outbound call uses. It follows no redirect (undici follows none
 * without a redirect interceptor, and none is added): a 3xx is the other side's answer.
 */
export function createOutboundAgent(policy: OutboundPolicy, resolve: Resolver = dnsLookup): Agent {
  // Built once: a `ca` list in the connect options would be parsed again on every new TLS connection.
  const secureContext = policy.extraCaPem ? createSecureContext({ ca: [...rootCertificates, policy.extraCaPem] }) : undefined;
  const connect = buildConnector({
    lookup: guardedLookup(policy, resolve),
    timeout: CONNECT_TIMEOUT_MS,
    ...(secureContext ? { secureContext } : {}),
  });
  return new Agent({
    // An IP literal is never looked up: it is judged here, on the connection that would use it.
    connect: (options, callback) => {
      const host = options.hostname.replace(/^\[|\]$/g, '');
      if (isIP(host) && !isAddressAllowed(host, policy)) return callback(new DestinationRefused(NOT_ALLOWED), null);
      return connect(options, callback);
    },
    connections: 64,
  });
}

/** An answer bigger than a reader's cap: what was read is dropped, the rest never read. */
export class AnswerTooLarge extends Error {}

/**
 * The body of an answer, at most `maxBytes`: beyond it the rest is left unread and the connection
 * dropped; `truncate` keeps the first `maxBytes` (a delivery's excerpt), else it is AnswerTooLarge.
 */
export async function readBounded(
  body: Dispatcher.ResponseData['body'],
  maxBytes: number,
  options: { truncate?: boolean } = {},
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body as AsyncIterable<Buffer>) {
      chunks.push(chunk);
      size += chunk.length;
      if (size > maxBytes || (options.truncate && size === maxBytes)) break;
    }
  } finally {
    body.destroy();
  }
  if (size > maxBytes && !options.truncate) throw new AnswerTooLarge(`the answer is larger than ${maxBytes} bytes`);
  return Buffer.concat(chunks).subarray(0, maxBytes);
}

/** Error codes of Node and undici, in words that name neither an address nor the other side's answer. */
const FAILURE_WORDS: Record<string, string> = {
  ECONNREFUSED: 'the connection was refused',
  ECONNRESET: 'the connection was reset',
  EPIPE: 'the connection was closed while sending',
  ETIMEDOUT: 'the connection timed out',
  EHOSTUNREACH: 'the host is unreachable',
  ENETUNREACH: 'the network is unreachable',
  ENOTFOUND: 'the name does not resolve',
  EAI_AGAIN: 'the name could not be resolved right now',
  UND_ERR_CONNECT_TIMEOUT: 'the connection timed out',
  UND_ERR_HEADERS_TIMEOUT: 'no answer in time',
  UND_ERR_BODY_TIMEOUT: 'the answer did not arrive in time',
  UND_ERR_SOCKET: 'the connection was closed',
  UND_ERR_ABORTED: 'no answer in time',
  ABORT_ERR: 'no answer in time',
  CERT_HAS_EXPIRED: 'TLS: the certificate has expired',
  DEPTH_ZERO_SELF_SIGNED_CERT: 'TLS: the certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'TLS: the certificate chain is self-signed',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'TLS: the certificate cannot be verified',
  ERR_TLS_CERT_ALTNAME_INVALID: 'TLS: the certificate does not name the host',
};

/**
 * Why an outbound call failed, for people who read it (a delivery attempt, a 503 detail, a workflow
 * history): a refused destination says so, anything else is named by its error code only. Never the
 * resolved address, never a byte of the answer (error messages of Node and undici carry both).
 */
export function describeOutboundError(error: unknown): string {
  for (let current: unknown = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth += 1) {
    if (current instanceof DestinationRefused || current instanceof AnswerTooLarge) return current.message;
    if (current.name === 'TimeoutError' || current.name === 'AbortError') return FAILURE_WORDS.ABORT_ERR!;
    const code = (current as NodeJS.ErrnoException).code;
    if (code && FAILURE_WORDS[code]) return FAILURE_WORDS[code];
    if (code?.startsWith('ERR_SSL') || code?.startsWith('ERR_TLS')) return `TLS: the handshake failed (${code})`;
  }
  return 'the call failed before an answer arrived';
}
