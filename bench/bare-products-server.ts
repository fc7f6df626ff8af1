import { createServer } from 'node:http';
import { createSql } from '../db/client.js';
import { getProduct, listProducts } from '../domain/catalog/index.js';
import { withShop } from '../domain/kernel/index.js';

/**
 * The baselines of the product scenarios: node:http calling the same domain query for a fixed shop
 * (`/detail`: `GET /products/{id}` of BENCH_PRODUCT_ID; anything else: `GET /products?limit=100`),
 * without the framework, authentication, rate limiting, validation or logging.
 */
const sql = createSql(process.env.APP_DATABASE_URL!, { max: 10, applicationName: 'bench-bare-products' });
const shopId = process.env.BENCH_SHOP_ID!;
const binding = { secret: 'bare-baseline-secret-0123456789', scope: { list: 'products' } };
const server = createServer(async (request, response) => {
  const body =
    request.url === '/detail'
      ? await withShop(sql, shopId, (tx) => getProduct(tx, process.env.BENCH_PRODUCT_ID!))
      : await withShop(sql, shopId, (tx) => listProducts(tx, { limit: 100 }, binding, 120));
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(JSON.stringify(body));
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
