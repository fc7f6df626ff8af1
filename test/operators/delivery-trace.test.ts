import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessGroup } from '../../scripts/processes.js';
import { freeLoopbackPort } from '../../telemetry/metrics-server.js';
import { TRACE_ATTRIBUTES } from '../../telemetry/tracing.js';
import { kitShop, type KitShop } from '../kit/kit-shop.js';
import { bearer } from '../support/fixtures.js';
import { processEnv, startApiWorkerRelay, stopApiWorkerRelay } from '../support/processes.js';
import { useSuite } from '../support/suite.js';

/**
 * The real API, worker and relay with `OTEL_EXPORTER_OTLP_ENDPOINT` set export their spans over
 * OTLP/HTTP to a collector (here a listener that keeps what it is sent): one order, from its
 * `POST /orders` to the receiver's answer, is one trace an operator can follow.
 */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: { key: string; value: { stringValue?: string; intValue?: number | string } }[];
}
interface ReceivedSpan extends OtlpSpan {
  service: string;
}
interface OtlpExport {
  resourceSpans: {
    resource: { attributes: { key: string; value: { stringValue?: string } }[] };
    scopeSpans: { spans: OtlpSpan[] }[];
  }[];
}

const { db, shop, receiver } = useSuite({ shop: true, receiver: true });
const group = new ProcessGroup(
  (name, code) => exits.push(`${name} (code ${code})`),
  () => undefined,
);
const exits: string[] = [];
const taskQueue = `trace-test-${randomUUID()}`;
const spans: ReceivedSpan[] = [];
let collector: Server;
let apiUrl: string;
let ready: KitShop;

/** A collector's OTLP/HTTP traces endpoint, as the JSON exporter sends to it. */
function startCollector(): Promise<string> {
  collector = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as OtlpExport;
      for (const { resource, scopeSpans } of body.resourceSpans) {
        const service = resource.attributes.find((attribute) => attribute.key === 'service.name')?.value.stringValue ?? '';
        for (const scope of scopeSpans) for (const span of scope.spans) spans.push({ ...span, service });
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    collector.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(collector.address() as AddressInfo).port}`)),
  );
}

const attribute = (span: OtlpSpan, key: string) => {
  const value = span.attributes?.find((candidate) => candidate.key === key)?.value;
  return value?.stringValue ?? (value?.intValue === undefined ? undefined : Number(value.intValue));
};

beforeAll(async () => {
  ready = await kitShop(db, shop, 1);
  const endpoint = await startCollector();
  apiUrl = await startApiWorkerRelay(
    group,
    processEnv(db.appUrl, taskQueue, {
      PORT: String(await freeLoopbackPort()),
      OTEL_EXPORTER_OTLP_ENDPOINT: endpoint,
      // The batch processor's wait before an export (5 s by default).
      OTEL_BSP_SCHEDULE_DELAY: '200',
    }),
  );
}, 120_000);
afterAll(async () => {
  collector?.close();
  await stopApiWorkerRelay(group, taskQueue);
});

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT', () => {
  it('makes one order, from POST /orders to its delivery’s answer, one trace with shop and flow ids and no customer data', async () => {
    const inbox = randomUUID();
    const { flowId } = await shop.newFlow({ name: 'Traced', eventType: 'order.created', url: receiver.url(inbox), state: 'on' });
    const phone = '0912 345 678';
    const noteId = randomUUID();
    const note = `Giao cho chị Lan, ${phone}, ${noteId}`;
    const created = await fetch(`${apiUrl}/api/open/v1/orders`, {
      method: 'POST',
      headers: { ...bearer(ready.key), 'content-type': 'application/json' },
      body: JSON.stringify({
        warehouseId: ready.warehouseId,
        note,
        lines: [{ variantId: ready.variantIds[0], quantity: '1', unitPrice: '250000' }],
      }),
    });
    expect(created.status, await created.clone().text()).toBe(201);
    await receiver.waitFor(inbox, 1);

    const request = () =>
      spans.find((span) => span.name === 'POST /api/open/v1/orders' && attribute(span, 'http.response.status_code') === 201);
    const trace = () => spans.filter((span) => span.traceId === request()?.traceId);
    // Each process exports its batch within a fraction of a second of the span's end; a workflow's
    // spans come when its run ends.
    await expect
      .poll(() => trace().map((span) => span.name), { timeout: 30_000 })
      .toEqual(
        expect.arrayContaining([
          'POST /api/open/v1/orders',
          'relay order.created',
          'StartWorkflow:deliveryWorkflow',
          'RunWorkflow:deliveryWorkflow',
          'StartActivity:sendWebhook',
          'RunActivity:sendWebhook',
          'POST',
        ]),
      );
    const root = request()!;
    expect(root.parentSpanId ?? '').toBe('');
    expect(root.service).toBe('shopflow-api');
    expect(attribute(root, TRACE_ATTRIBUTES.shopId)).toBe(shop.shopId);
    // One tree: every span but the request's has its parent in the trace.
    const ids = new Set(trace().map((span) => span.spanId));
    expect(trace().filter((span) => span !== root && !ids.has(span.parentSpanId ?? ''))).toEqual([]);
    const relayed = trace().find((span) => span.name === 'relay order.created')!;
    expect(relayed.service).toBe('shopflow-relay');
    expect([attribute(relayed, TRACE_ATTRIBUTES.shopId), attribute(relayed, TRACE_ATTRIBUTES.flowId)]).toEqual([shop.shopId, flowId]);
    const answered = trace().find((span) => span.name === 'POST')!;
    expect(attribute(answered, TRACE_ATTRIBUTES.shopId)).toBe(shop.shopId);
    expect(attribute(answered, 'http.response.status_code')).toBe(200);
    // Ids, names and statuses only: nothing of the order's content is in any span. The phone is
    // sought whole, spaces and all: its first digits alone turn up in random hex ids.
    const exported = JSON.stringify(spans);
    for (const part of ['Giao cho', phone, noteId]) expect(exported).not.toContain(part);
    expect(exits).toEqual([]);
  });
});
