import {
  context,
  INVALID_SPAN_CONTEXT,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NoopSpanProcessor, type SpanProcessor } from '@opentelemetry/sdk-trace-base';
import { NodeTracerProvider } from '@opentelemetry/sdk-trace-node';

/**
 * Span attributes of ours: ids only, never a customer's data (names, phones, addresses, amounts).
 * An operator finds one shop's or one flow's work by them in any trace viewer.
 */
export const TRACE_ATTRIBUTES = {
  shopId: 'shopflow.shop.id',
  flowId: 'shopflow.flow.id',
  eventId: 'shopflow.event.id',
  eventType: 'shopflow.event.type',
} as const;

/** A process's tracing: where its workers hand their workflows' spans, and how it flushes on exit. */
export interface Tracing {
  resource: Resource;
  /** The spans' processor (a no-op one while tracing is off): the workers' workflow spans go through it too. */
  spanProcessor: SpanProcessor;
  shutdown(): Promise<void>;
}

let on = false;

/**
 * Whether this process traces (`startTracing` was given an endpoint): what only serves traces (the
 * request hooks, Temporal's client and activity interceptors) is left out of the hot paths otherwise.
 */
export function tracingOn(): boolean {
  return on;
}

/**
 * Starts tracing for `serviceName` when `endpoint` (settings `OTEL_EXPORTER_OTLP_ENDPOINT`) is given:
 * spans exported over OTLP/HTTP in batches, W3C `traceparent` propagation. Without it nothing is
 * registered, so every span this project starts is a no-op and no trace context is written anywhere.
 */
export function startTracing(serviceName: string, endpoint: string | undefined): Tracing {
  const resource = new Resource({ 'service.name': serviceName });
  if (!endpoint) return { resource, spanProcessor: new NoopSpanProcessor(), shutdown: async () => undefined };
  on = true;
  const spanProcessor = new BatchSpanProcessor(
    new OTLPTraceExporter({ url: new URL('v1/traces', `${endpoint.replace(/\/$/, '')}/`).href }),
  );
  const provider = new NodeTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register();
  return { resource, spanProcessor, shutdown: () => provider.shutdown() };
}

const tracer = () => trace.getTracer('shopflow');

/** What `work` gets while the process does not trace: records nothing. */
const UNTRACED = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);

/**
 * Runs `work` in a new span named `name` (a child of `parent`, else of the active span), ended when
 * `work` settles; a thrown error marks the span as failed. Without tracing, `work` runs as it is.
 */
export function inSpan<T>(
  name: string,
  attributes: Attributes,
  work: (span: Span) => Promise<T>,
  parent?: Context,
  kind = SpanKind.INTERNAL,
): Promise<T> {
  if (!on) return work(UNTRACED);
  return tracer().startActiveSpan(name, { attributes, kind }, parent ?? context.active(), async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** Starts a span the caller ends (a request's, from its first hook to its response). */
export function startSpan(name: string, attributes: Attributes, kind = SpanKind.INTERNAL): Span {
  return tracer().startSpan(name, { attributes, kind });
}

/** The context a stored `traceparent` continues (the root context without one). */
export function traceContextOf(traceParent: string | null | undefined): Context {
  return traceParent ? propagation.extract(ROOT_CONTEXT, { traceparent: traceParent }) : ROOT_CONTEXT;
}
