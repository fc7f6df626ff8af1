import { createServer } from 'node:http';
import { createHash } from 'node:crypto';
import postgres from 'postgres';

/**
 * The baseline of the `GET /shop` scenario: node:http and postgres.js answering the same JSON
 * from the same key lookup and rate count (authenticate_request), with nothing else (no framework,
 * validation, rate-limit answer or logs). It counts on a counter of its own (`bare:<key>`), so the
 * API's keys keep their whole budget in the same bench.
 */
const sql = postgres(process.env.APP_DATABASE_URL!, { max: 10, transform: postgres.camel });
const server = createServer(async (request, response) => {
  const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const [row] = await sql<
    {
      shopId: string;
      shopSlug: string;
      shopName: string;
      applicationName: string;
      permissions: string[];
      pageIds: string[];
      plan: string;
    }[]
  >`
    select * from authenticate_request(${createHash('sha256').update(key).digest('hex')}, 'bare')`;
  if (!row) {
    response.writeHead(401).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json' });
  response.end(
    JSON.stringify({
      id: row.shopId,
      slug: row.shopSlug,
      name: row.shopName,
      application: { name: row.applicationName, permissions: row.permissions, pageIds: row.pageIds },
      readOnly: row.plan === 'expired',
    }),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
