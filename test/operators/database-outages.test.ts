import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeEvent } from '../../domain/events/outbox.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { ProcessGroup } from '../../scripts/processes.js';
import { freeLoopbackPort } from '../../telemetry/metrics-server.js';
import { bearer } from '../support/fixtures.js';
import { processEnv, startApiWorkerRelay, stopApiWorkerRelay } from '../support/processes.js';
import { useSuite } from '../support/suite.js';
import { envelopeId } from '../support/deliveries.js';

/**
 * Issue 46: the API, the worker and the relay, as `npm run dev` runs them, outlive their database
 * connections. Their backends are terminated again and again while events flow and requests come in;
 * then PostgreSQL "restarts": a proxy between them and the server drops every connection and refuses
 * new ones for three seconds, as a restarting server does. No process exits, every event is delivered,
 * and the API answers again.
 */
const { db, receiver, shop } = useSuite({ shop: true, receiver: true });
const exits: string[] = [];
/** The processes' last lines: shown with an exit, which no test here expects. */
const recent: string[] = [];
const group = new ProcessGroup(
  (name, code) => {
    exits.push(`${name} (code ${code})`);
    process.stderr.write(`${name} exited (code ${code}); the processes' last lines:\n${recent.join('')}`);
  },
  (line) => void (recent.push(line) > 100 && recent.shift()),
);
const taskQueue = `outage-test-${randomUUID()}`;
const inbox = randomUUID();
let apiUrl: string;
let key: string;

/** A TCP proxy to PostgreSQL that can drop every connection and refuse new ones for a while. */
class DatabaseProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  readonly port: number;
  private readonly target: number;

  constructor(port: number, target: number) {
    this.port = port;
    this.target = target;
  }
  async open(): Promise<void> {
    this.server = createServer((client) => {
      const upstream = connect(this.target, '127.0.0.1');
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('close', () => this.sockets.delete(socket));
        socket.on('error', () => undefined);
      }
      client.pipe(upstream).pipe(client);
      client.on('close', () => upstream.destroy());
      upstream.on('close', () => client.destroy());
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, '127.0.0.1', resolve));
  }
  /** Every connection cut, none taken for `ms`: the server restarting. */
  async restart(ms: number): Promise<number> {
    const cut = this.sockets.size;
    await new Promise<void>((resolve) => {
      this.server!.close(() => resolve());
      for (const socket of this.sockets) socket.destroy();
    });
    await new Promise((resolve) => setTimeout(resolve, ms));
    await this.open();
    return cut;
  }
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
let proxy: DatabaseProxy;

beforeAll(async () => {
  const databaseUrl = new URL(db.appUrl);
  const [api, proxyPort] = await Promise.all([freeLoopbackPort(), freeLoopbackPort()]);
  proxy = new DatabaseProxy(proxyPort, Number(databaseUrl.port));
  await proxy.open();
  databaseUrl.host = `127.0.0.1:${proxyPort}`;
  apiUrl = await startApiWorkerRelay(group, processEnv(databaseUrl.toString(), taskQueue, { PORT: String(api) }));
  await shop.newFlow({ name: 'Outages', eventType: 'product.updated', url: receiver.url(inbox), state: 'on' });
  key = (await shop.newKey(['pos.products.read'])).key;
}, 120_000);
afterAll(async () => {
  await stopApiWorkerRelay(group, taskQueue);
  await proxy?.close();
});

const emit = () =>
  withShop(db.app, shop.shopId, (tx) =>
    writeEvent(tx, {
      shopId: shop.shopId,
      type: 'product.updated',
      resourceId: randomUUID(),
      data: { id: randomUUID() },
      changes: { fields: ['name'] },
    }),
  );
const products = () => fetch(`${apiUrl}/api/open/v1/products?limit=5`, { headers: bearer(key) }).then((answer) => answer.status);
const delivered = () => new Set(receiver.received(inbox).map(envelopeId));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Terminates every backend of the three processes (the API's, the worker's, the relay's, LISTEN included); returns how many. */
async function terminateBackends(): Promise<number> {
  const rows = await db.admin<{ pid: number }[]>`
    select pg_terminate_backend(pid), pid from pg_stat_activity
    where application_name in ('shopflow-api', 'shopflow-worker', 'shopflow-relay') and datname = current_database()`;
  return rows.length;
}

describe('the processes, when PostgreSQL closes their connections', () => {
  it('carry on after their backends are terminated mid-work: every event delivered, the API answering', { timeout: 120_000 }, async () => {
    const sent: string[] = [];
    let terminated = 0;
    for (let round = 0; round < 6; round++) {
      const work = Promise.all([emit().then((id) => sent.push(id)), emit().then((id) => sent.push(id)), products(), products()]);
      await sleep(50 + round * 40);
      terminated += await terminateBackends();
      await work;
    }
    expect(terminated).toBeGreaterThanOrEqual(6);
    await expect.poll(() => [...sent].filter((id) => !delivered().has(id)), { timeout: 60_000, interval: 500 }).toEqual([]);
    await expect.poll(products, { timeout: 20_000, interval: 250 }).toBe(200);
    expect(exits).toEqual([]);
  });

  it('carry on after PostgreSQL restarts: connections dropped, refused for 3 s, then served again', { timeout: 120_000 }, async () => {
    await expect.poll(products, { timeout: 20_000, interval: 250 }).toBe(200);
    const before = await emit();
    const restart = proxy.restart(3_000);
    await sleep(500);
    // While the server is away: events still commit (this test's own connection is not proxied), the API says it cannot answer.
    const during = await emit();
    expect(await products()).toBeGreaterThanOrEqual(500);
    expect(await restart).toBeGreaterThanOrEqual(3);
    const after = await emit();
    await expect.poll(() => [before, during, after].filter((id) => !delivered().has(id)), { timeout: 60_000, interval: 500 }).toEqual([]);
    await expect.poll(products, { timeout: 20_000, interval: 250 }).toBe(200);
    expect(exits).toEqual([]);
  });
});
