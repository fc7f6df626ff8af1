import { createServer, type ServerResponse } from 'node:http';
import { createHash } from 'node:crypto';
import postgres from 'postgres';
import { encodeCursor } from '../domain/kernel/index.js';

/**
 * The minimal baselines of `GET /shop`, `GET /products?limit=100`, `GET /products/{id}` and `GET /orders?limit=50`: the
 * same JSON with the least work possible. node:http, and per request one hand-written statement that
 * checks the key (live, with the list's permission) and reads the page, outside any transaction. It
 * connects as the database owner and filters by the key's shop itself, so it pays neither row-level
 * security nor rate counting nor validation: a floor to measure the API against, not a design.
 * The row columns repeat the domain's lists on purpose: a baseline written apart from the code it
 * measures, whose queries stay as they are when the domain's change.
 */
const sql = postgres(process.env.DATABASE_URL!, { max: 10, transform: postgres.camel, onnotice: () => {} });
const cursorSecret = 'minimal-baseline-secret-0123456789';
/** The general counter's limit a minute, as the contract states it (written apart from the API's code on purpose). */
const RATE_LIMIT = 600;

/** The key of the hash is live (`k`: api_keys). */
const isLiveKey = (keyHash: string) =>
  sql`k.key_hash = ${keyHash} and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())`;

/** The live key of the hash, as `key` (`shop_id`), with `permission` when one is named. */
const liveKey = (keyHash: string, permission: string) => sql`
  select k.shop_id from api_keys k join applications a on a.id = k.application_id
  where ${isLiveKey(keyHash)} and ${permission} = any(a.permissions)`;

/**
 * `GET /shop`'s answer; `counted` also makes the one hit on the key's rate window the contract needs
 * (exact, shared by every instance, `X-RateLimit-Remaining` on every answer) in the same statement:
 * the floor of what the API must do, beside the floor of what it answers. The counters have a scope of
 * their own, so the API's keys keep their whole budget in the same bench.
 */
async function shop(keyHash: string, counted: boolean): Promise<Answer> {
  const hit = counted
    ? sql`insert into rate_limit_counters as c (scope, window_start, hits)
        select 'minimal:' || key.id, date_trunc('minute', clock_timestamp()), 1 from key
        on conflict (scope, window_start) do update set hits = c.hits + 1
        returning c.hits`
    : sql`select 0 as hits`;
  const [row] = await sql<{ id: string; slug: string; name: string; plan: string; application: object; hits: number }[]>`
    with key as (select k.id, k.shop_id, k.application_id from api_keys k where ${isLiveKey(keyHash)}), hit as (${hit})
    select s.id, s.slug, s.name, s.plan, json_build_object('name', a.name, 'permissions', a.permissions, 'pageIds', a.page_ids) as application, hit.hits
    from key join applications a on a.id = key.application_id join shops s on s.id = key.shop_id cross join hit`;
  if (!row) return { body: undefined };
  const body = { id: row.id, slug: row.slug, name: row.name, application: row.application, readOnly: row.plan === 'expired' };
  return counted
    ? { body, headers: { 'x-ratelimit-limit': RATE_LIMIT, 'x-ratelimit-remaining': Math.max(0, RATE_LIMIT - row.hits) } }
    : { body };
}

const PRODUCT_ROW = sql`
  p.id, p.code, p.name, p.type, p.is_active,
  coalesce((select array_agg(c.name order by pc.position, c.name) from product_categories pc join categories c on c.id = pc.category_id where pc.product_id = p.id), '{}') as category_names,
  (select count(*)::int from variants v where v.product_id = p.id and v.removed_at is null) as variant_count,
  (select i.url from product_images i where i.product_id = p.id order by cardinality(i.variant_ids) = 0 desc, i.position limit 1) as image_url,
  (select api_decimal(min(v.price)) from variants v where v.product_id = p.id and v.removed_at is null) as price_from,
  (select api_decimal(max(v.price)) from variants v where v.product_id = p.id and v.removed_at is null) as price_to,
  api_time(p.updated_at) as updated_at, api_time(p.deleted_at) as deleted_at`;

const ORDER_ROW = sql`
  o.id, o.code, o.status, o.warehouse_id, (select w.name from warehouses w where w.id = o.warehouse_id) as warehouse_name, o.customer_id,
  o.sales_channel_id, (select sc.name from sales_channels sc where sc.id = o.sales_channel_id) as sales_channel_name, o.received_at_shop,
  o.handler_user_id, (select u.name from users u where u.id = o.handler_user_id) as handler_name, o.bill_full_name, o.bill_phone, o.bill_email,
  api_decimal(o.total_price) as total_price, api_decimal(o.discount) as discount, api_decimal(o.shipping_fee) as shipping_fee, o.free_shipping,
  api_decimal(o.surcharge) as surcharge, api_decimal(o.tax) as tax, api_decimal(o.total_amount) as total_amount,
  api_decimal(o.returned_amount) as returned_amount, api_decimal(o.paid_amount) as paid_amount, api_time(o.occurred_at) as occurred_at, o.note,
  coalesce((select json_agg(json_build_object('id', t.id, 'name', t.name) order by ot.position) from order_tags ot join tags t on t.id = ot.tag_id where ot.order_id = o.id), '[]') as tags,
  api_time(o.created_at) as created_at, api_time(o.updated_at) as updated_at, api_time(o.deleted_at) as deleted_at`;

/**
 * One page of a list in (updated_at, id) order: the key row left-joined to the page, so no row means
 * 401 and one row without an id an empty list.
 */
async function page(keyHash: string, list: 'products' | 'orders', limit: number) {
  const [permission, columns, table] =
    list === 'products' ? ['pos.products.read', PRODUCT_ROW, sql`products p`] : ['pos.orders.read', ORDER_ROW, sql`orders o`];
  const alias = sql(list === 'products' ? 'p' : 'o');
  const rows = await sql<{ id: string | null; pageSortKey: string; shopId: string }[]>`
    with key as (${liveKey(keyHash, permission)})
    select key.shop_id, page.* from key left join lateral (
      select ${columns}, ${alias}.updated_at::text as page_sort_key from ${table}
      where ${alias}.shop_id = key.shop_id and ${alias}.deleted_at is null
      order by ${alias}.updated_at, ${alias}.id limit ${limit + 1}
    ) page on true`;
  if (rows.length === 0) return undefined;
  const found = rows[0]!.id === null ? [] : rows;
  const shown = found.slice(0, limit);
  const last = shown.at(-1);
  return {
    data: shown.map(({ shopId: _shopId, pageSortKey: _sortKey, ...row }) => row),
    nextCursor:
      found.length > limit && last
        ? encodeCursor({ sortKey: last.pageSortKey, id: last.id! }, { secret: cursorSecret, scope: { list, shop: last.shopId, limit } })
        : null,
  };
}

/**
 * `GET /products/{id}`'s answer built whole by the statement that checks the key, handed on as the
 * text PostgreSQL made: variant attributes as stored (jsonb's key order, not the product's).
 */
async function product(keyHash: string, id: string): Promise<Answer> {
  const [row] = await sql<{ shopId: string; body: string | null }[]>`
    with key as (${liveKey(keyHash, 'pos.products.read')})
    select key.shop_id, detail.body from key left join lateral (
      select json_build_object(
        'id', p.id, 'code', p.code, 'name', p.name, 'description', p.description, 'type', p.type, 'isActive', p.is_active,
        'categoryIds', coalesce((select json_agg(pc.category_id order by pc.position) from product_categories pc where pc.product_id = p.id), '[]'),
        'variants', coalesce((select json_agg(json_build_object(
            'id', v.id, 'code', v.code, 'barcode', v.barcode, 'price', api_decimal(v.price), 'weightGrams', api_decimal(v.weight_grams),
            'lengthCm', api_decimal(v.length_cm), 'widthCm', api_decimal(v.width_cm), 'heightCm', api_decimal(v.height_cm),
            'isActive', v.is_active, 'attributes', v.attributes, 'keywords', v.keywords) order by v.position)
          from variants v where v.product_id = p.id and v.removed_at is null), '[]'),
        'images', coalesce((select json_agg(json_build_object('id', i.id, 'url', i.url, 'kind', i.kind, 'variantIds', i.variant_ids) order by i.position)
          from product_images i where i.product_id = p.id), '[]'),
        'createdAt', api_time(p.created_at), 'deletedAt', api_time(p.deleted_at))::text as body
      from products p where p.id = ${id} and p.shop_id = key.shop_id
    ) detail on true`;
  return { body: row ? { raw: row.body ?? 'null' } : undefined };
}

/** An answer: its body (none for a key that is not live: 401) and its headers beyond the content type. */
interface Answer {
  body: object | undefined;
  headers?: Record<string, number>;
}

function answer(response: ServerResponse, { body, headers = {} }: Answer) {
  if (!body) {
    response.writeHead(401).end();
    return;
  }
  response.writeHead(200, { 'content-type': 'application/json', ...headers });
  response.end('raw' in body && typeof body.raw === 'string' ? body.raw : JSON.stringify(body));
}

const server = createServer((request, response) => {
  const key = /^Bearer (\S+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
  const keyHash = createHash('sha256').update(key).digest('hex');
  const path = request.url?.split('?')[0];
  const productId = /^\/products\/([0-9a-f-]{36})$/.exec(path ?? '')?.[1];
  const work: Promise<Answer> =
    path === '/shop' || path === '/shop-counted'
      ? shop(keyHash, path === '/shop-counted')
      : productId
        ? product(keyHash, productId)
        : page(keyHash, path === '/products' ? 'products' : 'orders', path === '/products' ? 100 : 50).then((body) => ({ body }));
  work.then(
    (found) => answer(response, found),
    (error: Error) => response.writeHead(500).end(error.message),
  );
});
server.listen(Number(process.env.PORT), '127.0.0.1');
process.once('SIGTERM', () => server.close(() => void sql.end().then(() => process.exit(0))));
