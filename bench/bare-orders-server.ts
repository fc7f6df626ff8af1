import { createServer } from 'node:http';
import { createSql } from '../db/client.js';
import { createOrder, listOrders } from '../domain/orders/index.js';
import { GRANTABLE_PERMISSIONS } from '../domain/access/index.js';
import { withShop } from '../domain/kernel/index.js';

/**
 * The baselines of the order scenarios: node:http calling the same domain functions for a fixed
 * shop (`POST` creates, `GET` lists 50), without the framework, authentication, rate limiting,
 * schema validation, idempotency or logging.
 */
const sql = createSql(process.env.APP_DATABASE_URL!, { max: 10, applicationName: 'bench-bare-orders' });
const shopId = process.env.BENCH_SHOP_ID!;
const actor = { shopId, permissions: GRANTABLE_PERMISSIONS, applicationId: process.env.BENCH_APPLICATION_ID! };
const binding = { secret: 'bare-baseline-secret-0123456789', scope: { list: 'orders' } };

const server = createServer((request, response) => {
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', async () => {
    const result =
      request.method === 'POST'
        ? await withShop(sql, shopId, (tx) => createOrder(tx, actor, JSON.parse(Buffer.concat(chunks).toString('utf8'))))
        : await withShop(sql, shopId, (tx) => listOrders(tx, { limit: 50 }, binding, 120));
    response.writeHead(request.method === 'POST' ? 201 : 200, { 'content-type': 'application/json' });
    response.end(JSON.stringify(result));
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
