import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { GRANTABLE_PERMISSIONS } from '../../domain/access/permissions.js';
import { expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { OPEN_API_DOCUMENT } from '../../api/routes/open-api.js';

/** What the Schemathesis runs found (docs/decisions/0211 to 0223, "Hardening: Fuzzing"), each pinned down by a plain request. */
const { api, shop, request } = useSuite({ api: true, shop: true });
let key: string;

beforeAll(async () => {
  key = (await shop.newKey([...GRANTABLE_PERMISSIONS])).key;
});

describe('a method a known path does not have', () => {
  it('is 405 method-not-allowed with Allow, with a body or not, once the key is checked; an unknown path stays 404', async () => {
    const id = randomUUID();
    const options = await request('OPTIONS', '/orders', { key });
    expect(options.headers.get('allow')?.split(', ').sort()).toEqual(['GET', 'HEAD', 'POST']);
    await expectProblem(options, 405, 'method-not-allowed');
    // QUERY carries a body: it was 400 for a missing Content-Type before any route was looked at.
    await expectProblem(await request('QUERY', `/products/${id}`), 401, 'invalid-api-key');
    const query = await request('QUERY', `/products/${id}`, { key });
    expect(query.headers.get('allow')?.split(', ').sort()).toEqual(['DELETE', 'GET', 'HEAD', 'PATCH']);
    await expectProblem(query, 405, 'method-not-allowed');
    await expectProblem(await request('PUT', `/orders/${id}/status`, { key, body: {} }), 405, 'method-not-allowed');
    await expectProblem(await request('GET', '/no-such-list', { key }), 404, 'not-found');
  });
});

describe('GET /customers?phone=', () => {
  it('lists nothing for a number of the accepted form that cannot exist (it was 400)', async () => {
    const response = await request('GET', '/customers?phone=84000000000', { key });
    expect(response.status, await response.clone().text()).toBe(200);
    expect(await response.json()).toEqual({ data: [], nextCursor: null });
    await expectProblem(await request('GET', '/customers?phone=abc', { key }), 400, 'validation-failed');
  });
});

describe('text limits', () => {
  it('count characters as the document does (code points): a 50-character keyword of emoji is accepted (it was 400)', async () => {
    // 50 characters, 100 UTF-16 units: String.length said 100.
    const keyword = '😍'.repeat(50);
    const attribute = '🏻'.repeat(255);
    const created = await request('POST', '/products', {
      key,
      body: { name: 'Emoji', variants: [{ keywords: [keyword], attributes: { colour: attribute } }] },
    });
    expect(created.status, await created.clone().text()).toBe(201);
    const body = (await created.json()) as { variants: { keywords: string[]; attributes: Record<string, string> }[] };
    expect(body.variants[0]).toMatchObject({ keywords: [keyword], attributes: { colour: attribute } });
    const tooLong = await request('POST', '/products', { key, body: { name: 'Emoji', variants: [{ keywords: ['😍'.repeat(51)] }] } });
    await expectProblem(tooLong, 400, 'validation-failed');
  });
});

describe('a body with a __proto__ or constructor.prototype key', () => {
  it('is read without that key, like any key no schema names (each was 400 "not well-formed JSON")', async () => {
    // JSON.parse makes "__proto__" an own key, which JSON.stringify then sends as written.
    const withProto: unknown = JSON.parse(
      '{"name": "Proto", "__proto__": {"polluted": true}, "variants": [{"attributes": {"colour": "red", "__proto__": "x"}}]}',
    );
    const created = await request('POST', '/products', { key, body: withProto });
    expect(created.status, await created.clone().text()).toBe(201);
    const product = (await created.json()) as { id: string; name: string; variants: { attributes: Record<string, string> }[] };
    expect(product.name).toBe('Proto');
    expect(product.variants.map((variant) => variant.attributes)).toEqual([{ colour: 'red' }]);
    const read = (await (await request('GET', `/products/${product.id}`, { key })).json()) as typeof product;
    expect(read.variants.map((variant) => Object.keys(variant.attributes))).toEqual([['colour']]);

    const withConstructor = { name: 'Constructor', constructor: { prototype: { polluted: true } }, variants: [{}] };
    const second = await request('POST', '/products', { key, body: withConstructor });
    expect(second.status, await second.clone().text()).toBe(201);
    expect(((await second.json()) as { name: string }).name).toBe('Constructor');
  });
});

describe('attribute names with an underscore', () => {
  it('are kept as given (they came back camel-cased), so a repeated variant is 409, not 500', async () => {
    const created = await request('POST', '/products', { key, body: { name: 'Shoe', variants: [{ attributes: { size_eu: '42' } }] } });
    expect(created.status, await created.clone().text()).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const patch = { variants: [{ attributes: { size_eu: '43', shoe_width: 'wide' } }] };
    const patched = await request('PATCH', `/products/${id}`, { key, body: patch });
    expect(patched.status, await patched.clone().text()).toBe(200);
    const read = (await (await request('GET', `/products/${id}`, { key })).json()) as {
      variants: { attributes: Record<string, string> }[];
    };
    expect(read.variants.map((variant) => variant.attributes)).toEqual([{ size_eu: '42' }, { size_eu: '43', shoe_width: 'wide' }]);
    await expectProblem(await request('PATCH', `/products/${id}`, { key, body: patch }), 409, 'variant-combo-duplicate');
  });
});

describe('the OpenAPI document', () => {
  type Operation = { requestBody?: { content: Record<string, { schema: Record<string, unknown> }> }; responses: Record<string, unknown> };
  let paths: Record<string, Record<string, Operation>>;
  beforeAll(async () => {
    paths = ((await (await fetch(`${api.baseUrl}${OPEN_API_DOCUMENT}`)).json()) as { paths: typeof paths }).paths;
  });

  it('says what an inventory document needs by kind: the target warehouse, and the sign of each quantity', () => {
    const schema = paths['/api/open/v1/inventory/documents']!.post!.requestBody!.content['application/json']!.schema;
    expect(schema.oneOf).toEqual([
      expect.objectContaining({ properties: expect.objectContaining({ kind: { enum: ['receipt', 'issue'] } }) }),
      expect.objectContaining({ required: ['kind', 'targetWarehouseId'] }),
      expect.objectContaining({ properties: expect.objectContaining({ kind: { enum: ['adjustment'] } }) }),
    ]);
  });

  it('links a creation and a list to the operations on the record, and a list to its next page', () => {
    const created = paths['/api/open/v1/orders']!.post!.responses['201'] as { links: Record<string, { operationRef: string }> };
    expect(created.links.get_id).toEqual({
      operationRef: '#/paths/~1api~1open~1v1~1orders~1{id}/get',
      parameters: { id: '$response.body#/id' },
    });
    expect(Object.keys(created.links)).toEqual(expect.arrayContaining(['patch_id', 'delete_id', 'post_id_status', 'get_id_notes']));
    const listed = paths['/api/open/v1/orders']!.get!.responses['200'] as { links: Record<string, { parameters: Record<string, string> }> };
    expect(listed.links.get_id!.parameters).toEqual({ id: '$response.body#/data/0/id' });
    expect(listed.links.nextPage!.parameters).toMatchObject({ cursor: '$response.body#/nextCursor', status: '$request.query.status' });
  });
});
