import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../domain/events/index.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';
import { useSuite } from '../support/suite.js';

/**
 * What client generators need of the public document (issue 30): one API, each operation named,
 * summarised and described, every header declared, formats on dates, times and ids, decimals with a
 * pattern, answers open to additions (spec, Versioning 2 and 5), and the event catalogue as webhooks.
 */

type Node = Record<string, unknown>;
interface Operation extends Node {
  operationId?: string;
  summary?: string;
  description?: string;
  parameters?: Node[];
  requestBody?: { content: Record<string, { schema: Node }> };
  responses: Record<string, { headers?: Record<string, Node>; content?: Record<string, { schema: Node }> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Node>; headers: Record<string, Node & { required?: boolean }>; parameters: Record<string, Node> };
}

const OPEN_API = '/api/open/v1';
/** The creations that honour Idempotency-Key (api/plugins/idempotency.ts: respondIdempotently). */
const IDEMPOTENT = ['createCustomer', 'createInventoryDocument', 'createOrder', 'createShipment', 'replyToCommentPrivately', 'sendMessage'];
/** Money, quantities and measures: decimal strings. */
const DECIMALS = new Set(
  'totalPrice discount shippingFee surcharge tax totalAmount returnedAmount paidAmount quantity unitPrice lineTotal returnedQuantity creditApplied amount price priceFrom priceTo weightGrams lengthCm widthCm heightCm reserved available inTransit codAmount feeTotal'.split(
    ' ',
  ),
);
/** Ids the chat platform makes, and the event id (`evt_…`): not UUIDs. */
const NOT_UUIDS = new Set(['postId', 'parentId']);

const { api, shop } = useSuite({ api: true, shop: true });
let document: Document;

beforeAll(async () => {
  document = (await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as Document;
});

function operations(from: Record<string, Record<string, Operation>> = document.paths) {
  return Object.entries(from).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
}

const resolve = (node: Node): Node =>
  typeof node.$ref === 'string' ? document.components[node.$ref.split('/')[2] as 'schemas'][node.$ref.split('/').pop()!]! : node;

/** Every object of `value` with where it is, through `$ref`s to schemas once each. */
function* walk(value: unknown, where: string, seen = new Set<string>()): Generator<{ node: Node; where: string }> {
  if (Array.isArray(value)) for (const [index, item] of value.entries()) yield* walk(item, `${where}/${index}`, seen);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return;
  const node = value as Node;
  yield { node, where };
  if (typeof node.$ref === 'string' && node.$ref.startsWith('#/components/schemas/') && !seen.has(node.$ref)) {
    seen.add(node.$ref);
    yield* walk(resolve(node), node.$ref, seen);
  }
  for (const [key, inner] of Object.entries(node)) if (key !== 'examples' && key !== 'example') yield* walk(inner, `${where}/${key}`, seen);
}

/** A value's schemas: the branches of an `anyOf`, but `null` and single values (`enum: [""]`). */
const branches = (schema: Node): Node[] =>
  Array.isArray(schema.anyOf)
    ? (schema.anyOf as Node[]).flatMap((branch) => branches(resolve(branch)))
    : schema.type === 'null' || Array.isArray(schema.enum)
      ? []
      : [schema];

/** Each property of the objects `root` reaches (not the partial rules of a `oneOf` or `not`), with its schemas. */
function* properties(root: unknown, where: string): Generator<{ name: string; schemas: Node[]; where: string }> {
  for (const { node, where: at } of walk(root, where))
    if (node.type === 'object' && typeof node.properties === 'object' && node.properties !== null)
      for (const [name, schema] of Object.entries(node.properties as Record<string, Node>))
        yield { name, schemas: branches(resolve(schema)), where: `${at}.${name}` };
}

describe('the public OpenAPI document', () => {
  it('describes /api/open/v1 only, with a unique camelCase operationId, a summary and a description on every operation and webhook', () => {
    const all = [...operations(), ...operations(document.webhooks)];
    expect(operations().every(({ path }) => path.startsWith(`${OPEN_API}/`))).toBe(true);
    expect(operations().length).toBeGreaterThan(40);
    const lacking = all.filter(
      ({ operation }) => !/^[a-z][A-Za-z0-9]+$/.test(operation.operationId ?? '') || !operation.summary || !operation.description,
    );
    expect(lacking.map(({ method, path }) => `${method} ${path}`)).toEqual([]);
    const ids = all.map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('declares Idempotency-Key on the creations that honour it, and the headers every answer carries', () => {
    const withKey = operations()
      .filter(({ operation }) => operation.parameters?.some((parameter) => resolve(parameter).name === 'Idempotency-Key'))
      .map(({ operation }) => operation.operationId);
    expect(withKey.sort()).toEqual(IDEMPOTENT);
    for (const { method, path, operation } of operations())
      for (const [status, response] of Object.entries(operation.responses)) {
        const names = Object.keys(response.headers ?? {});
        expect(names, `${method} ${path} ${status}`).toEqual(
          expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']),
        );
        if (status === '429') expect(names, `${method} ${path} 429`).toContain('Retry-After');
        if (status.startsWith('2') && IDEMPOTENT.includes(operation.operationId!)) expect(names).toContain('Idempotent-Replayed');
      }
  });

  it('gives every time a date-time format, every date a date format, every id a uuid format, every decimal a pattern', () => {
    const wrong: string[] = [];
    const roots = [document.paths, document.webhooks];
    for (const { name, schemas, where } of roots.flatMap((root) => [...properties(root, '#')])) {
      const formats = schemas.map((schema) => schema.format);
      if (/At$/.test(name) && !formats.every((format) => format === 'date-time')) wrong.push(`${where}: ${formats.join()}`);
      if (name === 'dateOfBirth' && !formats.every((format) => format === 'date')) wrong.push(`${where}: ${formats.join()}`);
      // An event's envelope `id` is `evt_…`, not a uuid.
      const eventId = schemas.every((schema) => schema.pattern === '^evt_');
      const id = (name === 'id' && !eventId) || (/Id$/.test(name) && !NOT_UUIDS.has(name));
      if (id && !formats.every((format) => format === 'uuid')) wrong.push(`${where}: ${formats.join()}`);
      if (DECIMALS.has(name) && !schemas.every((schema) => typeof schema.pattern === 'string')) wrong.push(`${where}: no pattern`);
    }
    expect(wrong).toEqual([]);
    const updatedSince = operations()
      .flatMap(({ operation }) => operation.parameters ?? [])
      .filter((parameter) => parameter.name === 'updatedSince');
    expect(updatedSince.length).toBeGreaterThanOrEqual(5);
    for (const parameter of updatedSince) {
      expect(parameter.schema).toMatchObject({ type: 'string', format: 'date-time' });
      expect(parameter.schema).not.toHaveProperty('allOf');
    }
  });

  it('keeps answers open to new fields and enum values, and request bodies closed', () => {
    const answered = [
      ...operations().flatMap(({ operation }) => Object.values(operation.responses).map((response) => response.content)),
      ...operations(document.webhooks).map(({ operation }) => operation.requestBody),
    ];
    const closed = [...walk(answered, '#')].filter(({ node }) => node.additionalProperties === false || Array.isArray(node.enum));
    expect(closed.map(({ where }) => where)).toEqual([]);
    const { status } = document.components.schemas.Order!.properties as Record<string, Node>;
    expect(status).toMatchObject({ type: 'string', 'x-extensible-enum': expect.arrayContaining(['new', 'cancelled']) });
    const createOrder = operations().find(({ operation }) => operation.operationId === 'createOrder')!.operation;
    expect(createOrder.requestBody!.content['application/json']!.schema.additionalProperties).toBe(false);
  });

  it('has no construct generators stop on (`items: false`, tuples)', () => {
    const found = [...walk(document, '#')].filter(({ node }) => node.items === false || 'prefixItems' in node);
    expect(found.map(({ where }) => where)).toEqual([]);
  });

  it('holds a webhook per event type of the catalogue: the signed POST of its envelope, its resource in data', () => {
    expect(Object.keys(document.webhooks)).toEqual(EVENT_TYPES);
    const resources = {
      order: 'Order',
      product: 'Product',
      inventory: 'StockRow',
      customer: 'Customer',
      shipment: 'Shipment',
      message: 'ChatMessage',
    };
    for (const type of EVENT_TYPES) {
      const { post } = document.webhooks[type]!;
      const envelope = resolve(post!.requestBody!.content['application/json']!.schema);
      const fields = envelope.properties as Record<string, Node>;
      expect(fields.type, type).toEqual({ type: 'string', const: type });
      expect(fields.data!.$ref, type).toBe(`#/components/schemas/${resources[type.split('.')[0] as keyof typeof resources]}`);
      expect(Object.keys(fields), type).toEqual(expect.arrayContaining(['id', 'apiVersion', 'createdAt', 'shop']));
      expect(post!.parameters!.map((parameter) => resolve(parameter).name)).toEqual([
        'webhook-id',
        'webhook-timestamp',
        'webhook-signature',
      ]);
    }
  });

  it('declares the headers real answers carry: rate limits on a success, Idempotent-Replayed on a replay', async () => {
    const { key } = await shop.newKey(['pos.customers.create']);
    const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() };
    const send = () =>
      fetch(`${api.baseUrl}${OPEN_API}/customers`, { method: 'POST', headers, body: JSON.stringify({ name: 'Nguyễn Thị Lan' }) });
    const first = await send();
    const replay = await send();
    const declared = document.paths[`${OPEN_API}/customers`]!.post!.responses['201']!.headers!;
    for (const [name, header] of Object.entries(declared))
      if (resolve(header).required) expect([first.headers.get(name), replay.headers.get(name)], name).not.toContain(null);
    expect([first.status, replay.status]).toEqual([201, 201]);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(Object.keys(declared)).toContain('Idempotent-Replayed');
  });
});
