import { writeFileSync } from 'node:fs';
import { Connection } from '@temporalio/client';
import { historyToJSON } from '@temporalio/common/lib/proto-utils.js';
import type { Payload } from '@temporalio/common';
import { format } from 'prettier';
import { AesGcmPayloadCodec } from '../config/payload-codec.js';
import { loadSettings } from '../config/settings.js';
import { temporalConnectionOptions } from '../config/temporal-connection.js';

/**
 * `node scripts/record-history.ts <workflowId> <name>`: a run's history from the local Temporal server,
 * its payloads decrypted with the development codec key, written to test/workflows/histories/<name>.json,
 * where test/workflows/history-replay.test.ts replays it with today's workflow code. Record a run of
 * each path a workflow change keeps (a test that ran it leaves it on the server for a few days).
 */
const [workflowId, name] = process.argv.slice(2);
if (!workflowId || !name) {
  console.error('usage: node scripts/record-history.ts <workflowId> <name>');
  process.exit(2);
}
const settings = loadSettings({ ...process.env, NODE_ENV: process.env.NODE_ENV ?? 'development' });
const codec = new AesGcmPayloadCodec(settings.payloadCodecKeys);
const connection = await Connection.connect(temporalConnectionOptions(settings));
try {
  const history = await connection.workflowService.getWorkflowExecutionHistory({
    namespace: settings.TEMPORAL_NAMESPACE,
    execution: { workflowId },
    maximumPageSize: 1_000,
  });
  if (history.nextPageToken?.length) throw new Error(`${workflowId} has more than one page of history: record a shorter run`);
  await decrypted(history.history);
  const file = new URL(`../test/workflows/histories/${name}.json`, import.meta.url);
  writeFileSync(file, await format(historyToJSON(history.history as never), { parser: 'json' }));
  console.log(`${workflowId}: ${history.history?.events?.length ?? 0} events written to ${file.pathname}`);
} finally {
  await connection.close();
}

/** Every payload in the history, decrypted in place: a replay reads them as a worker would after the codec. */
async function decrypted(node: unknown): Promise<void> {
  if (node === null || typeof node !== 'object') return;
  // Arrays too: their entries are keyed by index.
  const record = node as Record<string, unknown>;
  for (const [key, value] of Object.entries(record)) {
    if (isPayload(value)) record[key] = (await codec.decode([value]))[0];
    else await decrypted(value);
  }
}

function isPayload(value: unknown): value is Payload {
  return value !== null && typeof value === 'object' && 'metadata' in value && 'data' in value && value.data instanceof Uint8Array;
}
