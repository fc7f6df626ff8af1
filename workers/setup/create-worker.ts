import type { KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { DefaultLogger, NativeConnection, Runtime, Worker, type InjectedSinks, type WorkflowBundleOption } from '@temporalio/worker';
import { makeWorkflowExporter, OpenTelemetryActivityInboundInterceptor } from '@temporalio/interceptors-opentelemetry';
import { Resource } from '@opentelemetry/resources';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace-base';
import { createAppSql, outliveClosedConnections, type Sql } from '../../db/client.js';
import { createOutboundAgent, outboundPolicyFrom, type OutboundPolicy } from '../../adapters/outbound/outbound-http.js';
import { createDeliveryActivities, UNSEALED_REQUEST } from '../../activities/deliveries/delivery-activities.js';
import { createRecoveryActivities } from '../../activities/deliveries/delivery-recovery.js';
import { createHousekeepingActivities } from '../../activities/housekeeping/housekeeping.js';
import {
  createCarrierActivities,
  createPushActivities,
  createShipmentRecordActivities,
  UNSEALED_INPUT,
} from '../../activities/shipments/shipment-activities.js';
import { DEFAULT_RETENTION, loadSettings, type Retention, type Settings } from '../../config/settings.js';
import type { CarrierEndpoints } from '../../domain/shipments/index.js';
import { cachedWorkflowBundle } from './workflow-bundle.js';
import { sealedActivities, unsealedActivities } from '../../activities/sealed-activities.js';
import { freeLoopbackPort, serveMetrics, type MetricsServer } from '../../telemetry/metrics-server.js';
import { shipmentTaskQueue, type ShipmentOutcomes } from '../../workflows/shipments/shipment-starter.js';
import type { ShipmentCancelResult, ShipmentOutcomeSinks, ShipmentPushResult } from '../../workflows/shipments/shipment-workflows.js';
import type { ShipmentDetail } from '../../domain/shipments/index.js';
import { temporalConnectionOptions } from '../../config/temporal-connection.js';
import { shopflowDataConverter, type CodecKey } from '../../config/payload-codec.js';
import { startTracing, tracingOn, type Tracing } from '../../telemetry/tracing.js';

export const workflowsPath = fileURLToPath(new URL('../../workflows/index.ts', import.meta.url));
const USER_AGENT = `Shopflow-Webhooks/${(JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version}`;

export interface ShopflowWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  /** `TEMPORAL_TASK_QUEUE`: the queue of `main`, and the base of the shipments' queue (shipmentTaskQueue). */
  taskQueue: string;
  /**
   * `main` (the default) polls `taskQueue` with every activity: deliveries, test-runs, housekeeping,
   * and shipment runs started before the shipments had a queue. `shipments` polls the shipments'
   * queue with the shipments' activities only: what an API process hosts (docs/behaviour/shipments.md).
   */
  queue?: 'main' | 'shipments';
  /** Where the worker hands the outcome of each push and cancel it runs (an API process waits there). */
  shipmentOutcomes?: ShipmentOutcomes;
  /** How the worker names itself in histories (the SDK's default: `<pid>@<host>`). */
  identity?: string;
  /** Long polls the worker keeps open per kind of task (the SDK's default: 10 each). */
  pollsAtMost?: number;
  sql: Sql;
  policy: OutboundPolicy;
  /** `WORKFLOW_SEAL_KEY`: the worker acts only on workflow inputs and signals sealed with it (deliveries, shipments). */
  sealKey: string;
  /** Opens the flows' sealed signing secrets and the carrier connections' credentials, here only: where they are used. */
  secretsKey: KeyObject;
  /** The bundle of `workflows/`, kept between starts (workflow-bundle.ts). */
  workflowBundle: WorkflowBundleOption;
  /** The payload codec's keys (settings `PAYLOAD_CODEC_KEYS`): histories hold only ciphertext. */
  payloadCodecKeys: readonly [CodecKey, ...CodecKey[]];
  /** Where carrier connections may point (settings `CARRIER_A_HOSTS`, `CARRIER_B_HOSTS`). */
  carrierEndpoints: CarrierEndpoints;
  /** What housekeeping keeps (settings `DELIVERY_RETENTION_DAYS`, `EVENT_RETENTION_DAYS`); their defaults without it. */
  retention?: Retention;
  /** Where the workflows' and activities' spans go (telemetry/tracing.ts); dropped without it. */
  tracing?: Pick<Tracing, 'resource' | 'spanProcessor'>;
}

/**
 * Workflow tasks (and local activities) a worker runs at once. A relay starts up to a batch (100) of
 * deliveries at once; eager start hands a delivery's first task to the relay's worker only while it
 * has a free slot (the SDK's default is 40), else the server queues it.
 */
export const WORKFLOW_TASK_SLOTS = 100;

/** The Temporal worker of one of Shopflow's queues (`options.queue`), with every workflow. */
export async function createShopflowWorker(options: ShopflowWorkerOptions): Promise<Worker> {
  // One dispatcher for every outbound call of the worker: webhooks and carriers alike.
  const outbound = createOutboundAgent(options.policy);
  // Every activity through the one check of its input (activities/sealed-activities.ts): any workflow
  // of the namespace may schedule any of them on these queues.
  const shipments = sealedActivities(options.sealKey, UNSEALED_INPUT, shipmentActivities(options, outbound));
  const activities =
    options.queue === 'shipments'
      ? shipments
      : {
          ...shipments,
          ...sealedActivities(
            options.sealKey,
            UNSEALED_REQUEST,
            createDeliveryActivities({
              sql: options.sql,
              secretsKey: options.secretsKey,
              dispatcher: outbound,
              policy: options.policy,
              userAgent: USER_AGENT,
            }),
          ),
          ...sealedActivities(options.sealKey, UNSEALED_INPUT, createRecoveryActivities({ sql: options.sql, sealKey: options.sealKey })),
          ...unsealedActivities(createHousekeepingActivities({ sql: options.sql, retention: options.retention ?? DEFAULT_RETENTION })),
        };
  return Worker.create({
    connection: options.connection,
    dataConverter: shopflowDataConverter(options.payloadCodecKeys),
    namespace: options.namespace,
    taskQueue: options.queue === 'shipments' ? shipmentTaskQueue(options.taskQueue) : options.taskQueue,
    activities,
    // Where the process traces, each activity runs in a span continuing its workflow's trace.
    ...(tracingOn()
      ? { interceptors: { activity: [(context) => ({ inbound: new OpenTelemetryActivityInboundInterceptor(context) })] } }
      : {}),
    // Registered always: a run started in a trace elsewhere hands its spans here (dropped without tracing).
    sinks: {
      ...shipmentOutcomeSinks(options.shipmentOutcomes),
      exporter: makeWorkflowExporter(
        options.tracing?.spanProcessor ?? new NoopSpanProcessor(),
        options.tracing?.resource ?? Resource.empty(),
      ),
    },
    ...(options.identity ? { identity: options.identity } : {}),
    ...(options.pollsAtMost
      ? {
          workflowTaskPollerBehavior: { type: 'simple-maximum', maximum: options.pollsAtMost },
          activityTaskPollerBehavior: { type: 'simple-maximum', maximum: options.pollsAtMost },
        }
      : {}),
    workflowBundle: options.workflowBundle,
    maxConcurrentWorkflowTaskExecutions: WORKFLOW_TASK_SLOTS,
    maxConcurrentLocalActivityExecutions: WORKFLOW_TASK_SLOTS,
    // At least the deliveries in flight, so none is evicted and replayed from history between its
    // retries; the SDK's default is derived from the heap and falls to 10 on a small one.
    maxCachedWorkflows: 1_000,
  });
}

/** The sink every worker registers (a workflow calling an unregistered one logs an error); without `outcomes`, it drops them. */
export function shipmentOutcomeSinks(outcomes?: ShipmentOutcomes): InjectedSinks<ShipmentOutcomeSinks> {
  return { shipmentOutcome: { settled: { fn: (info, outcome) => outcomes?.settle(info.workflowId, outcome) } } };
}

/** The carrier calls, the shipment records and the push that joins them. */
function shipmentActivities(options: ShopflowWorkerOptions, outbound: ReturnType<typeof createOutboundAgent>) {
  const { shipmentOutcomes } = options;
  const carrier = createCarrierActivities({
    sql: options.sql,
    secretsKey: options.secretsKey,
    sealKey: options.sealKey,
    adapterOptions: { dispatcher: outbound, endpoints: options.carrierEndpoints },
    ...(shipmentOutcomes ? { handedConnection: (workflowId: string) => shipmentOutcomes.takeConnection(workflowId) } : {}),
  });
  const records = createShipmentRecordActivities({
    sql: options.sql,
    sealKey: options.sealKey,
    ...(shipmentOutcomes
      ? {
          cancelRecorded: (workflowId: string, shipment: ShipmentDetail) =>
            shipmentOutcomes.settle(workflowId, { outcome: 'cancelled', shipment } satisfies ShipmentCancelResult),
        }
      : {}),
  });
  const recorded = shipmentOutcomes
    ? (workflowId: string, shipment: ShipmentDetail) =>
        shipmentOutcomes.settle(workflowId, { outcome: 'accepted', shipment } satisfies ShipmentPushResult)
    : undefined;
  return { ...carrier, ...records, ...createPushActivities({ carrier, records, ...(recorded ? { recorded } : {}) }) };
}

/**
 * The SDK's runtime of a process that hosts workers: its logging at WARN (it logs every bundle and
 * state change at INFO), and the process's `/metrics` (its own and the SDK's: the SDK's core exports
 * on a loopback port, served again under the process's address) unless METRICS is off.
 */
export async function installWorkerRuntime(settings: Settings, metricsPort: number): Promise<MetricsServer | undefined> {
  const logger = new DefaultLogger(settings.LOG_LEVEL === 'debug' || settings.LOG_LEVEL === 'trace' ? 'DEBUG' : 'WARN');
  if (settings.METRICS === 'off') {
    Runtime.install({ logger });
    return undefined;
  }
  const coreMetrics = `127.0.0.1:${await freeLoopbackPort()}`;
  Runtime.install({
    logger,
    // Prometheus's conventions: `_total` counters, durations in seconds with their unit in the name.
    telemetryOptions: {
      metrics: { prometheus: { bindAddress: coreMetrics, countersTotalSuffix: true, unitSuffix: true, useSecondsForDurations: true } },
    },
  });
  return serveMetrics({ host: settings.METRICS_HOST, port: metricsPort, alsoFrom: [`http://${coreMetrics}/metrics`] });
}

/**
 * A worker's options from the settings, on a process's pool and connection, with the bundle kept
 * between starts; a connection still being made is awaited beside the bundle.
 */
export async function workerOptionsFrom(
  settings: Settings,
  sql: Sql,
  connecting: NativeConnection | Promise<NativeConnection>,
  tracing?: Tracing,
): Promise<ShopflowWorkerOptions & { queue?: never }> {
  const [connection, { bundle }] = await Promise.all([
    connecting,
    cachedWorkflowBundle(workflowsPath, { logger: Runtime.instance().logger }),
  ]);
  return {
    connection,
    namespace: settings.TEMPORAL_NAMESPACE,
    taskQueue: settings.TEMPORAL_TASK_QUEUE,
    sql,
    policy: outboundPolicyFrom(settings),
    sealKey: settings.WORKFLOW_SEAL_KEY,
    secretsKey: settings.secretsKey,
    workflowBundle: bundle,
    carrierEndpoints: settings.carrierEndpoints,
    payloadCodecKeys: settings.payloadCodecKeys,
    retention: settings.retention,
    ...(tracing ? { tracing } : {}),
  };
}

/**
 * What a worker process (workers/worker.ts, workers/relay.ts) starts with: its settings, the SDK's
 * runtime and its `/metrics`, its tracing (named `applicationName`), the database pool, the Temporal
 * connection, and the worker of the main queue on them (`pollsAtMost` long polls of each kind, the
 * SDK's default without it); with `shipments`, a worker of the shipments' queue too.
 */
export async function prepareWorkerProcess(
  applicationName: string,
  metricsPort: (settings: Settings) => number,
  { shipments = false, pollsAtMost }: { shipments?: boolean; pollsAtMost?: number } = {},
): Promise<{
  settings: Settings;
  sql: Sql;
  connection: NativeConnection;
  worker: Worker;
  shipmentWorker: Worker | undefined;
  metrics: MetricsServer | undefined;
  tracing: Tracing;
}> {
  const settings = loadSettings();
  const tracing = startTracing(applicationName, settings.OTEL_EXPORTER_OTLP_ENDPOINT);
  const metrics = await installWorkerRuntime(settings, metricsPort(settings));
  const sql = createAppSql(settings, applicationName);
  outliveClosedConnections((message) => console.error(JSON.stringify({ level: 'warn', message })));
  const options = await workerOptionsFrom(settings, sql, NativeConnection.connect(temporalConnectionOptions(settings)), tracing);
  const { connection } = options;
  const [worker, shipmentWorker] = await Promise.all([
    createShopflowWorker({ ...options, ...(pollsAtMost ? { pollsAtMost } : {}) }),
    shipments ? createShopflowWorker({ ...options, queue: 'shipments' }) : undefined,
  ]);
  return { settings, sql, connection, worker, shipmentWorker, metrics, tracing };
}
