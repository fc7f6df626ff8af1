import type {
  Next,
  WorkflowExecuteInput,
  WorkflowInboundCallsInterceptor,
  WorkflowInterceptors,
  WorkflowInternalsInterceptor,
  WorkflowOutboundCallsInterceptor,
} from '@temporalio/workflow';
import { defaultPayloadConverter } from '@temporalio/common';
import type { TRACE_HEADER as TraceHeader } from '@temporalio/interceptors-opentelemetry/lib/instrumentation.js';
import type { interceptors as OpenTelemetryInterceptors } from '@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js';

/** The header of a start made in a trace: the library's constant, restated (its module would load OpenTelemetry). */
const TRACE_HEADER: typeof TraceHeader = '_tracer-data';

/**
 * Temporal's OpenTelemetry workflow interceptors, loaded by a traced run only. Every run has a module
 * cache of its own in the worker's shared V8 context, so an import here evaluated some 110
 * OpenTelemetry modules (api, core, sdk-trace-base) anew in every run, traced or not.
 */
function openTelemetry(): ReturnType<typeof OpenTelemetryInterceptors> {
  // webpack's require in the bundle (this module runs nowhere else), evaluated on its first call in a run.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors.js') as {
    interceptors: typeof OpenTelemetryInterceptors;
  };
  return loaded.interceptors();
}

type Method = (input: unknown, next: (input: unknown) => unknown) => unknown;

/** The start carried a trace: the client's interceptor adds its header always, with a `traceparent` only within a trace. */
function startedInTrace(headers: WorkflowExecuteInput['headers']): boolean {
  const header = headers[TRACE_HEADER];
  return header !== undefined && 'traceparent' in (defaultPayloadConverter.fromPayload<Record<string, string>>(header) ?? {});
}

type Methods = Record<string, Method | undefined>;

/**
 * Temporal's OpenTelemetry interceptors, for a run whose start carried a trace (tracing was on where
 * it started: telemetry/tracing.ts), and none for the others: making and handing over their spans
 * cost the relay 4 to 6 ms of CPU per delivery while tracing was off (docs/capacity.md). The start's
 * headers decide, on replay as at first; a traced run passes its trace on to what it starts.
 */
export const interceptors = (): WorkflowInterceptors => {
  let traced: { inbound: Methods; outbound: Methods; internals: Methods } | undefined;
  /** Each named method of the OpenTelemetry interceptor `part`: its own while the run is traced, else straight on. */
  const delegating = <T>(part: 'inbound' | 'outbound' | 'internals', methods: readonly string[]): T =>
    Object.fromEntries(
      methods.map((method) => [
        method,
        ((input, next) => {
          const own = traced?.[part][method];
          return own ? own.call(traced![part], input, next) : next(input);
        }) satisfies Method,
      ]),
    ) as T;

  const inbound: WorkflowInboundCallsInterceptor = {
    ...delegating<WorkflowInboundCallsInterceptor>('inbound', ['handleSignal', 'handleUpdate', 'validateUpdate', 'handleQuery']),
    execute(input: WorkflowExecuteInput, next: Next<WorkflowInboundCallsInterceptor, 'execute'>) {
      if (!startedInTrace(input.headers)) return next(input);
      const made = openTelemetry();
      traced = { inbound: made.inbound![0] as Methods, outbound: made.outbound![0] as Methods, internals: made.internals![0] as Methods };
      return traced.inbound.execute!.call(traced.inbound, input, next as (input: unknown) => unknown) as Promise<unknown>;
    },
  };
  const outbound = delegating<WorkflowOutboundCallsInterceptor>('outbound', [
    'scheduleActivity',
    'scheduleLocalActivity',
    'startNexusOperation',
    'startChildWorkflowExecution',
    'continueAsNew',
    'signalWorkflow',
    'getLogAttributes',
    'getMetricTags',
  ]);
  const internals = delegating<WorkflowInternalsInterceptor>('internals', ['dispose']);
  return { inbound: [inbound], outbound: [outbound], internals: [internals] };
};
