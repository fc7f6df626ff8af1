import { readFileSync } from 'node:fs';
import { Client, type ConnectionLike, type TLSConfig } from '@temporalio/client';
import { OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import { shopflowDataConverter, type CodecKey } from './payload-codec.js';
import { tracingOn } from '../telemetry/tracing.js';
import type { Settings } from './settings.js';

type TemporalSettings = Pick<
  Settings,
  'TEMPORAL_ADDRESS' | 'TEMPORAL_TLS_CERT_FILE' | 'TEMPORAL_TLS_KEY_FILE' | 'TEMPORAL_TLS_CA_FILE' | 'TEMPORAL_TLS_SERVER_NAME'
>;

/**
 * How every Shopflow process connects to the Temporal frontend: plain on the local dev server; TLS
 * when a CA or server name is given; mutual TLS (the frontend then knows its clients) when a client
 * certificate and key are given. The same options suit `Connection` and `NativeConnection`.
 */
export function temporalConnectionOptions(settings: TemporalSettings): { address: string; tls?: TLSConfig } {
  const {
    TEMPORAL_TLS_CERT_FILE: certFile,
    TEMPORAL_TLS_KEY_FILE: keyFile,
    TEMPORAL_TLS_CA_FILE: caFile,
    TEMPORAL_TLS_SERVER_NAME: serverName,
  } = settings;
  if (Boolean(certFile) !== Boolean(keyFile)) throw new Error('TEMPORAL_TLS_CERT_FILE and TEMPORAL_TLS_KEY_FILE go together');
  if (!certFile && !caFile && !serverName) return { address: settings.TEMPORAL_ADDRESS };
  return {
    address: settings.TEMPORAL_ADDRESS,
    tls: {
      ...(serverName ? { serverNameOverride: serverName } : {}),
      ...(caFile ? { serverRootCACertificate: readFileSync(caFile) } : {}),
      ...(certFile && keyFile ? { clientCertPair: { crt: readFileSync(certFile), key: readFileSync(keyFile) } } : {}),
    },
  };
}

/**
 * A Temporal client of Shopflow: every payload through the codec of `codecKeys` (config/payload-codec.ts),
 * so nothing a client starts, signals or reads travels or rests in plain text; what it starts or
 * signals continues the caller's trace where the process traces (telemetry/tracing.ts).
 */
export function temporalClient(connection: ConnectionLike, codecKeys: readonly [CodecKey, ...CodecKey[]], namespace?: string): Client {
  return new Client({
    connection,
    ...(namespace ? { namespace } : {}),
    dataConverter: shopflowDataConverter(codecKeys),
    // Its header would ride on every start and signal even empty: only where the process traces.
    ...(tracingOn() ? { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } } : {}),
  });
}
