import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { addProduct, addWarehouse } from '../../scripts/fixtures/index.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

/**
 * Generated from the served OpenAPI document. The suite's shop owns one record of every kind an
 * operation takes an id of; another shop's key (every grantable permission) must get 404
 * `not-found` for each, with a body valid by the operation's own schema, and must see none of them
 * in any list, with and without `includeDeleted`. A new operation on a new kind of record fails here
 * until its record is added to `owned`.
 */
const { db, api, shop, request } = useSuite({ api: true, shop: true });

type Schema = Record<string, unknown>;
interface Operation {
  method: string;
  path: string;
  parameters: { name: string; in: string }[];
  body?: Schema;
}
let document: { paths: Record<string, Record<string, Schema>>; components?: { schemas?: Record<string, Schema> } };
let operations: Operation[];
/** Path prefix before the first `{id}` → the owning shop's record of that kind. */
const owned: Record<string, string> = {};
let foreignKey: string;

const resolve = (schema: Schema): Schema =>
  typeof schema.$ref === 'string' ? resolve(document.components!.schemas![schema.$ref.split('/').pop()!]!) : schema;

/** The smallest value the schema accepts, for the fields it requires. */
function sample(raw: Schema): unknown {
  const schema = resolve(raw);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const) {
    const options = (schema[key] as Schema[] | undefined)?.filter((option) => resolve(option).type !== 'null');
    const option = options?.[0] && resolve(options[0]);
    // A branch that only adds constraints (`oneOf: [{ required: ['text'] }, …]`) narrows the schema itself.
    if (option && !['type', 'anyOf', 'oneOf', 'enum', 'const', 'properties'].some((name) => name in option))
      return sample({
        ...schema,
        [key]: undefined,
        required: [...((schema.required ?? []) as string[]), ...((option.required ?? []) as string[])],
      });
    if (option) return sample(option);
  }
  if (schema.enum) return (schema.enum as unknown[])[0];
  if (schema.const !== undefined) return schema.const;
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((name) => name !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const properties = (schema.properties ?? {}) as Record<string, Schema>;
      return Object.fromEntries(((schema.required ?? []) as string[]).map((name) => [name, sample(properties[name]!)]));
    }
    case 'array':
      return Array.from({ length: Number(schema.minItems ?? 0) }, () => sample(schema.items as Schema));
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 1);
    case 'boolean':
      return false;
    default:
      if (schema.format === 'uuid') return randomUUID();
      if (schema.format === 'date-time') return new Date().toISOString();
      return schema.pattern ? '1' : 'x';
  }
}

beforeAll(async () => {
  document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as typeof document;
  operations = Object.entries(document.paths)
    .filter(([path]) => path.startsWith('/api/open/v1/'))
    .flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => {
        const content = (operation.requestBody as { content?: Record<string, { schema: Schema }> } | undefined)?.content;
        return {
          method: method.toUpperCase(),
          path: path.slice('/api/open/v1'.length),
          parameters: (operation.parameters ?? []) as Operation['parameters'],
          ...(content?.['application/json'] ? { body: content['application/json'].schema } : {}),
        };
      }),
    );

  // The owning shop's records, one of each kind (written as the owner: they only need to exist).
  const warehouseId = await withShop(db.app, shop.shopId, (tx) => addWarehouse(tx, shop.shopId, { name: 'W' }));
  const product = await withShop(db.app, shop.shopId, (tx) =>
    addProduct(tx, shop.shopId, { name: 'Owned', price: '1', stock: { warehouseId, quantity: '5' } }),
  );
  const { key } = await shop.newKey([...GRANTABLE_PERMISSIONS]);
  const created = async (path: string, body: unknown) => {
    const response = await request('POST', path, { key, body });
    expect(response.status, await response.clone().text()).toBe(201);
    return ((await response.json()) as { id: string }).id;
  };
  const customerId = await created('/customers', { name: 'Owned' });
  const orderId = await created('/orders', {
    warehouseId,
    customerId,
    lines: [{ variantId: product.variants[0]!.id, quantity: '1', unitPrice: '1' }],
  });
  await request('DELETE', `/customers/${customerId}`, { key });
  const [page] = await db.admin<{ id: string }[]>`insert into pages (shop_id, name) values (${shop.shopId}, 'P') returning id`;
  const [connection] = await db.admin<{ id: string }[]>`
    insert into carrier_connections (shop_id, carrier, name) values (${shop.shopId}, 'carrier_a', 'A') returning id`;
  const [shipment] = await db.admin<{ id: string }[]>`
    insert into shipments (shop_id, order_id, connection_id, carrier, tracking_code, status)
    values (${shop.shopId}, ${orderId}, ${connection!.id}, 'carrier_a', 'A1', 'pending') returning id`;
  const [document_] = await db.admin<{ id: string }[]>`
    insert into inventory_documents (shop_id, kind, warehouse_id) values (${shop.shopId}, 'receipt', ${warehouseId}) returning id`;
  const [chatCustomer] = await db.admin<{ id: string }[]>`
    insert into chat_customers (shop_id, page_id, platform_customer_id, name) values (${shop.shopId}, ${page!.id}, 'c1', 'C') returning id`;
  const [conversation] = await db.admin<{ id: string }[]>`
    insert into chat_conversations (shop_id, page_id, chat_customer_id) values (${shop.shopId}, ${page!.id}, ${chatCustomer!.id}) returning id`;
  await db.admin`
    insert into chat_messages (shop_id, page_id, conversation_id, direction, text, platform_message_id, sent_at)
    values (${shop.shopId}, ${page!.id}, ${conversation!.id}, 'in', 'hi', 'm1', now())`;
  const [comment] = await db.admin<{ id: string }[]>`
    insert into chat_comments (shop_id, page_id, platform_comment_id, platform_post_id, chat_customer_id, text, created_at)
    values (${shop.shopId}, ${page!.id}, 'k1', 'p1', ${chatCustomer!.id}, 'hi', now()) returning id`;
  Object.assign(owned, {
    '/products/': product.id,
    '/customers/': customerId,
    '/orders/': orderId,
    '/shipments/': shipment!.id,
    '/inventory/documents/': document_!.id,
    '/conversations/': conversation!.id,
    '/comments/': comment!.id,
  });
  // The other shop's key holds every permission, and its application every page of its own shop.
  const foreign = await createShopFixture(db.app);
  await db.admin`insert into pages (shop_id, name) values (${foreign.shopId}, 'Own page')`;
  foreignKey = (await foreign.newKey([...GRANTABLE_PERMISSIONS])).key;
});

describe('cross-shop sweep over the OpenAPI document', () => {
  it('answers 404 not-found to another shop’s key for every operation that takes an id', async () => {
    let checks = 0;
    for (const operation of operations.filter((candidate) => candidate.path.includes('{'))) {
      const prefix = operation.path.slice(0, operation.path.indexOf('{'));
      const id = owned[prefix];
      expect(id, `${operation.method} ${operation.path}: add a record of this kind to the sweep`).toBeDefined();
      const path = operation.path.replace(/\{[^}]+\}/, id!);
      const response = await request(operation.method, path, {
        key: foreignKey,
        body: operation.body ? sample(operation.body) : undefined,
      });
      const body = (await response.json()) as { code?: string };
      expect({ operation: `${operation.method} ${operation.path}`, status: response.status, code: body.code }).toEqual({
        operation: `${operation.method} ${operation.path}`,
        status: 404,
        code: 'not-found',
      });
      checks += 1;
    }
    console.info(`cross-shop sweep: ${checks} operations taking an id, each with another shop's record`);
    expect(checks).toBeGreaterThanOrEqual(15);
  });

  it('shows another shop no row of this one in any list, with and without includeDeleted', async () => {
    const ownedIds = new Set(
      (
        await db.admin<{ id: string }[]>`
          select id::text from products where shop_id = ${shop.shopId} union all select id::text from variants where shop_id = ${shop.shopId}
          union all select id::text from customers where shop_id = ${shop.shopId} union all select id::text from orders where shop_id = ${shop.shopId}
          union all select id::text from shipments where shop_id = ${shop.shopId} union all select id::text from warehouses where shop_id = ${shop.shopId}
          union all select id::text from pages where shop_id = ${shop.shopId} union all select id::text from chat_conversations where shop_id = ${shop.shopId}
          union all select id::text from chat_comments where shop_id = ${shop.shopId} union all select id::text from carrier_connections where shop_id = ${shop.shopId}`
      ).map((row) => row.id),
    );
    let lists = 0;
    for (const operation of operations.filter((candidate) => candidate.method === 'GET' && !candidate.path.includes('{'))) {
      const required = operation.parameters.filter(
        (parameter) => parameter.in === 'query' && (parameter as { required?: boolean }).required,
      );
      const query = new URLSearchParams(
        required.map((parameter): [string, string] => [parameter.name, String(sample((parameter as { schema?: Schema }).schema ?? {}))]),
      );
      const variants = operation.parameters.some((parameter) => parameter.name === 'includeDeleted') ? ['', 'includeDeleted=true'] : [''];
      for (const extra of variants) {
        const search = [query.toString(), extra].filter(Boolean).join('&');
        const response = await request('GET', `${operation.path}${search ? `?${search}` : ''}`, { key: foreignKey });
        expect(response.status, `${operation.path}?${search}`).toBe(200);
        const text = await response.text();
        for (const id of ownedIds) expect(text, `${operation.path}?${search} shows ${id}`).not.toContain(id);
        lists += 1;
      }
    }
    console.info(`cross-shop sweep: ${lists} list reads, none showing any of ${ownedIds.size} foreign ids`);
    expect(lists).toBeGreaterThanOrEqual(15);
  });
});
