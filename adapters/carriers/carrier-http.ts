import { request, type Dispatcher } from 'undici';
import { describeOutboundError, readBounded } from '../outbound/outbound-http.js';
import { CarrierError } from './carrier-adapter.js';
import { SpanKind, type Span } from '@opentelemetry/api';
import { inSpan } from '../../telemetry/tracing.js';

export interface CarrierAnswer {
  status: number;
  body: unknown;
}

/** How carrier calls travel: the outbound policy's dispatcher (connect-time address checks, no redirects), bounded in time. */
export interface CarrierTransport {
  dispatcher: Dispatcher;
  timeoutMs: number;
}

/** Carrier answers are small JSON documents (the largest, a district's wards, is a few KiB); anything past this is not read. */
export const MAX_CARRIER_ANSWER_BYTES = 1024 * 1024;

/**
 * One JSON call to a carrier, bounded by `timeoutMs` end to end and by MAX_CARRIER_ANSWER_BYTES.
 * Whatever keeps the answer from arriving (network, time-out, a refused address, a dropped
 * connection, a body that is not JSON or too large) is `unavailable`, and so are the answers that say
 * nothing about the order: 429 and 5xx. 401/403 is `unauthorized`: the connection's credentials are
 * refused, so nothing was done and retrying will not help. No error repeats the answer's bytes or the
 * address a name resolved to (they reach a 503 detail and the workflow history).
 */
export function callCarrier(
  method: 'GET' | 'POST',
  url: string,
  transport: CarrierTransport,
  options: { headers: Record<string, string>; body?: unknown },
): Promise<CarrierAnswer> {
  // A client span of the shipment's trace: the carrier's host and answer, never the path or body.
  const attributes = { 'http.request.method': method, 'server.address': URL.parse(url)?.hostname ?? '' };
  return inSpan(method, attributes, (span) => answerOf(method, url, transport, options, span), undefined, SpanKind.CLIENT);
}

async function answerOf(
  method: 'GET' | 'POST',
  url: string,
  transport: CarrierTransport,
  options: { headers: Record<string, string>; body?: unknown },
  span: Span,
): Promise<CarrierAnswer> {
  let status: number;
  let text: string;
  try {
    const response = await request(url, {
      method,
      dispatcher: transport.dispatcher,
      headers: {
        accept: 'application/json',
        ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      headersTimeout: transport.timeoutMs,
      bodyTimeout: transport.timeoutMs,
      signal: AbortSignal.timeout(transport.timeoutMs),
    });
    status = response.statusCode;
    span.setAttribute('http.response.status_code', status);
    text = (await readBounded(response.body, MAX_CARRIER_ANSWER_BYTES)).toString('utf8');
  } catch (error) {
    throw new CarrierError('unavailable', `no answer from the carrier: ${describeOutboundError(error)}`, { cause: error });
  }
  if (status === 401 || status === 403)
    throw new CarrierError('unauthorized', `the carrier refuses the connection's credentials (${status})`);
  if (status === 429) throw new CarrierError('unavailable', 'the carrier is rate limiting the shop (429)');
  if (status >= 500) throw new CarrierError('unavailable', `carrier fault (${status})`);
  try {
    return { status, body: JSON.parse(text) as unknown };
  } catch (error) {
    throw new CarrierError('unavailable', `the carrier answered ${status} with a body that is not JSON`, { cause: error });
  }
}

/**
 * Reads an answer with the schema of what the carrier documents; anything else is a carrier fault,
 * named by the fields that did not match (never their values).
 */
export function readAnswer<T>(
  schema: {
    safeParse(input: unknown): { success: true; data: T } | { success: false; error: { issues: readonly { path: PropertyKey[] }[] } };
  },
  answer: CarrierAnswer,
  what: string,
): T {
  const parsed = schema.safeParse(answer.body);
  if (parsed.success) return parsed.data;
  const fields = [...new Set(parsed.error.issues.map((issue) => issue.path.map(String).join('.') || '(the answer)'))].slice(0, 5);
  throw new CarrierError('unavailable', `unexpected ${what} answer (${answer.status}): ${fields.join(', ')} not as documented`);
}
