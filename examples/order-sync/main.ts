import { readFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createShopflowClient, sync } from '@shopflow/client';
import { nodeWebhookHandler } from '@shopflow/client/node';
import { LocalCopy } from './local-copy.js';

/**
 * order-sync: a local copy of the shop's orders in SQLite, kept by `order.*` webhooks (real time) and
 * by a sync pass at start and every SYNC_INTERVAL_MS (what webhooks may have missed). Stop it at any
 * moment: on restart, undelivered webhooks come again and the pass starts 15 min before its mark.
 */
const env = (name: string, fallback?: string): string => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`order-sync: set ${name}`);
  return value;
};

const copy = LocalCopy.open(env('ORDER_SYNC_DB', 'order-sync.sqlite'));
const client = createShopflowClient({ baseUrl: env('SHOPFLOW_URL'), apiKey: env('SHOPFLOW_API_KEY') });
const handler = nodeWebhookHandler({
  // The signing secrets of the flows sending here (one flow per order event type, or two secrets during a rotation).
  secrets: env('WEBHOOK_SECRETS').split(','),
  seen: copy.seen,
  onEvent: (event) => {
    // A flow's test-run: its order is made up (or a real one resent), so it is acknowledged, not stored.
    if (event.test) {
      console.log(`order-sync: test event ${event.type} received`);
      return;
    }
    switch (event.type) {
      case 'order.created':
      case 'order.updated':
      case 'order.status_changed':
      case 'order.deleted':
        copy.upsert(event.data);
    }
  },
});
const tls = process.env.TLS_CERT_FILE && {
  cert: readFileSync(env('TLS_CERT_FILE')),
  key: readFileSync(env('TLS_KEY_FILE')),
};
const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);
server.listen(Number(env('PORT', '8080')), env('HOST', '127.0.0.1'), () => console.log(`order-sync: listening on ${env('PORT', '8080')}`));

const pass = async () => {
  const applied = await sync(client, 'orders', { store: copy.marks, apply: (rows) => rows.forEach((row) => copy.upsert(row)) });
  console.log(`order-sync: sync pass applied ${applied} orders`);
};
await pass();
const interval = Number(env('SYNC_INTERVAL_MS', '60000'));
const schedule = () => setTimeout(() => void pass().then(schedule, (error: unknown) => (console.error(error), schedule())), interval);
schedule();
