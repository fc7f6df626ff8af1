import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { expectAbsentReference, expectProblem } from '../support/problems.js';
import { useSuite } from '../support/suite.js';
import { deleteCustomer } from '../../domain/customers/customers.js';
import { updateShopSettings } from '../../domain/access/shops.js';
import { withShop } from '../../domain/kernel/tenancy.js';

const { db, shop, request } = useSuite({ api: true, shop: true });
let key: string;

beforeAll(async () => {
  key = (await shop.newKey(['pos.customers.read', 'pos.customers.create', 'pos.customers.update'])).key;
});

const call = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}, withKey = key) =>
  request(method, path, { key: withKey, body, headers });

async function createCustomer(body: Record<string, unknown>) {
  const response = await call('POST', '/customers', body);
  expect(response.status).toBe(201);
  return (await response.json()) as Record<string, unknown> & { id: string };
}

const eventsOf = (resourceId: string) =>
  withShop(
    db.app,
    shop.shopId,
    (tx) => tx<{ type: string; changes: unknown; data: Record<string, unknown> }[]>`
    select type, changes, data from events where resource_id = ${resourceId} order by id`,
  );

/** Moves customers' updatedAt into the past, as if they had been changed then. */
const backdate = (ids: string[], minutesAgo: number[]) =>
  Promise.all(
    ids.map(
      (id, index) => db.admin`update customers set updated_at = now() - make_interval(mins => ${minutesAgo[index]!}) where id = ${id}`,
    ),
  );

describe('creating customers', () => {
  it('creates a customer with normalised phones and emits only customer.created', async () => {
    const customer = await createCustomer({
      name: 'Nguyễn Thị Lan',
      gender: 'female',
      dateOfBirth: '1990-05-17',
      contacts: [
        { kind: 'phone', value: '0901 234 567' },
        { kind: 'phone', value: '84.912.345.678', isPrimary: true },
      ],
    });
    expect(customer).toMatchObject({
      name: 'Nguyễn Thị Lan',
      gender: 'female',
      dateOfBirth: '1990-05-17',
      source: 'manual',
      isBlocked: false,
      primaryPhone: '+84912345678',
      primaryEmail: null,
      deletedAt: null,
      addresses: [],
    });
    expect(customer.contacts).toEqual([
      { id: expect.any(String), kind: 'phone', value: '+84912345678', isPrimary: true },
      { id: expect.any(String), kind: 'phone', value: '+84901234567', isPrimary: false },
    ]);
    const events = await eventsOf(customer.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([['customer.created', null]]);
    expect(events[0]!.data).toEqual(customer);
  });

  it('refuses a phone with letters with 400 and a field path, and creates nothing', async () => {
    const body = await expectProblem(
      await call('POST', '/customers', { name: 'Bad', contacts: [{ kind: 'phone', value: '09O1 234 567' }] }),
      400,
      'validation-failed',
    );
    expect(body.errors).toEqual([{ path: 'contacts.0.value', message: expect.any(String) }]);
    const list = (await (await call('GET', '/customers?search=bad')).json()) as { data: unknown[] };
    expect(list.data).toHaveLength(0);
  });

  it('refuses a phone that already belongs to another customer with 409 conflict', async () => {
    await createCustomer({ name: 'Trần Minh', contacts: [{ kind: 'phone', value: '0933 111 222' }] });
    await expectProblem(
      await call('POST', '/customers', { name: 'Someone else', contacts: [{ kind: 'phone', value: '+84933111222' }] }),
      409,
      'conflict',
    );
  });

  it('tells a key that may only create customers nothing of the customer holding a phone', async () => {
    const holder = await createCustomer({ name: 'Đỗ Quang Vinh', contacts: [{ kind: 'phone', value: '0966 402 731' }] });
    const probe = { name: 'Probe', contacts: [{ kind: 'phone', value: '0966402731' }] };
    const createOnly = (await shop.newKey(['pos.customers.create'])).key;
    const problem = await expectProblem(await call('POST', '/customers', probe, {}, createOnly), 409, 'conflict');
    expect(problem.detail).toMatch(/already exists/);
    for (const told of [holder.id, 'Vinh', 'customerId']) expect(JSON.stringify(problem)).not.toContain(told);
  });

  it('replays a creation sent again with the same Idempotency-Key', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'Phạm Hoa', contacts: [{ kind: 'phone', value: '0977 000 111' }] };
    const first = await call('POST', '/customers', body, { 'idempotency-key': idempotencyKey });
    const again = await call('POST', '/customers', body, { 'idempotency-key': idempotencyKey });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual(await first.json());
    const found = (await (await call('GET', '/customers?phone=0977000111')).json()) as { data: unknown[] };
    expect(found.data).toHaveLength(1);
  });

  it('refuses unknown fields, bad dates and a missing name with 400', async () => {
    await expectProblem(await call('POST', '/customers', { name: 'X', email: 'x@y.vn' }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/customers', { name: 'X', dateOfBirth: '17/05/1990' }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/customers', { gender: 'male' }), 400, 'validation-failed');
    await expectProblem(await call('POST', '/customers', { name: 'x'.repeat(256) }), 400, 'validation-failed');
  });

  it('needs pos.customers.create', async () => {
    const readOnly = (await shop.newKey(['pos.customers.read'])).key;
    await expectProblem(await call('POST', '/customers', { name: 'X' }, {}, readOnly), 403, 'insufficient-permission');
  });
});

describe('reading customers', () => {
  it('finds a customer by phone in any accepted form, and by part of the name', async () => {
    const customer = await createCustomer({ name: 'Đỗ Văn Quang', contacts: [{ kind: 'phone', value: '0388 765 432' }] });
    for (const form of ['0388765432', '84388765432', '+84 388 765 432', '0388.765.432']) {
      const found = (await (await call('GET', `/customers?phone=${encodeURIComponent(form)}`)).json()) as { data: { id: string }[] };
      expect(
        found.data.map((row) => row.id),
        form,
      ).toEqual([customer.id]);
    }
    const byName = (await (await call('GET', '/customers?search=v%C4%83n%20quang')).json()) as { data: { id: string }[] };
    expect(byName.data.map((row) => row.id)).toEqual([customer.id]);
    await expectProblem(await call('GET', '/customers?phone=abc'), 400, 'validation-failed');
  });

  it('answers another shop’s customer id with 404, exactly like an unknown id', async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(['pos.customers.read', 'pos.customers.create'])).key;
    const response = await call('POST', '/customers', { name: 'Elsewhere' }, {}, otherKey);
    const theirs = (await response.json()) as { id: string };
    await expectProblem(await call('GET', `/customers/${theirs.id}`), 404, 'not-found');
    await expectProblem(await call('GET', `/customers/${randomUUID()}`), 404, 'not-found');
    await expectProblem(await call('PATCH', `/customers/${theirs.id}`, { name: 'Mine now' }), 404, 'not-found');
    expect((await call('GET', `/customers/${theirs.id}`, undefined, {}, otherKey)).status).toBe(200);
  });

  it('gives list rows without contacts or addresses', async () => {
    const list = (await (await call('GET', '/customers?limit=1')).json()) as { data: Record<string, unknown>[] };
    expect(Object.keys(list.data[0]!).sort()).toEqual([
      'createdAt',
      'dateOfBirth',
      'deletedAt',
      'gender',
      'id',
      'isBlocked',
      'name',
      'primaryEmail',
      'primaryPhone',
      'source',
      'updatedAt',
    ]);
  });
});

describe('editing customers', () => {
  it('emits customer.updated with exactly the changed fields, and nothing when nothing changed', async () => {
    const customer = await createCustomer({ name: 'Lê Hải', gender: 'male' });
    const response = await call('PATCH', `/customers/${customer.id}`, { name: 'Lê Văn Hải', dateOfBirth: '1985-01-02' });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ name: 'Lê Văn Hải', gender: 'male', dateOfBirth: '1985-01-02' });
    expect((await call('PATCH', `/customers/${customer.id}`, { name: 'Lê Văn Hải' })).status).toBe(200);
    const events = await eventsOf(customer.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['customer.created', null],
      ['customer.updated', { fields: ['name', 'dateOfBirth'] }],
    ]);
  });

  it('refuses phones in a PATCH: they are not changed by this path', async () => {
    const customer = await createCustomer({ name: 'Vũ Thu' });
    await expectProblem(
      await call('PATCH', `/customers/${customer.id}`, { contacts: [{ kind: 'phone', value: '0901234567' }] }),
      400,
      'validation-failed',
    );
  });

  it('adds addresses, newest first, refuses an identical one with 409, and raises updatedAt', async () => {
    const customer = await createCustomer({ name: 'Hoàng Yến' });
    const first = await call('POST', `/customers/${customer.id}/addresses`, {
      recipientName: 'Yến',
      recipientPhone: '0901 000 222',
      addressLine: '12 Lý Thường Kiệt',
      provinceName: 'Hà Nội',
    });
    expect(first.status).toBe(201);
    expect(await first.json()).toEqual({
      id: expect.any(String),
      recipientName: 'Yến',
      recipientPhone: '+84901000222',
      addressLine: '12 Lý Thường Kiệt',
      geoSystem: null,
      provinceUnitId: null,
      districtUnitId: null,
      wardUnitId: null,
      provinceName: 'Hà Nội',
      districtName: null,
      wardName: null,
    });
    await call('POST', `/customers/${customer.id}/addresses`, { addressLine: '5 Nguyễn Huệ', provinceName: 'TP. Hồ Chí Minh' });
    const duplicate = await call('POST', `/customers/${customer.id}/addresses`, {
      recipientName: 'yến',
      recipientPhone: '+84901000222',
      addressLine: '12  Lý Thường Kiệt',
      provinceName: 'Hà Nội',
    });
    await expectProblem(duplicate, 409, 'conflict');
    const detail = (await (await call('GET', `/customers/${customer.id}`)).json()) as {
      addresses: { addressLine: string }[];
      updatedAt: string;
    };
    expect(detail.addresses.map((address) => address.addressLine)).toEqual(['5 Nguyễn Huệ', '12 Lý Thường Kiệt']);
    expect(detail.updatedAt > (customer.updatedAt as string)).toBe(true);
    const events = await eventsOf(customer.id);
    expect(events.map((event) => [event.type, event.changes])).toEqual([
      ['customer.created', null],
      ['customer.updated', { fields: ['addresses'] }],
      ['customer.updated', { fields: ['addresses'] }],
    ]);
  });

  it('refuses an address of an unknown customer with 404 and a bad body with 400', async () => {
    await expectProblem(await call('POST', `/customers/${randomUUID()}/addresses`, { addressLine: 'x' }), 404, 'not-found');
    const customer = await createCustomer({ name: 'No Address' });
    await expectProblem(await call('POST', `/customers/${customer.id}/addresses`, { provinceName: 'Hà Nội' }), 400, 'validation-failed');
    // A unit id naming no unit: detail only, with the field's path.
    const missing = randomUUID();
    await expectAbsentReference(
      await call('POST', `/customers/${customer.id}/addresses`, { addressLine: 'x', wardUnitId: missing }),
      'wardUnitId',
      missing,
    );
  });
});

describe('a deleted customer', () => {
  it('is 404 to an edit and to a new address, and nothing of it changes', async () => {
    const customer = await createCustomer({ name: 'Đã xoá' });
    await withShop(db.app, shop.shopId, (tx) => deleteCustomer(tx, shop.shopId, customer.id));
    const [before] = await db.admin<
      { updatedAt: string }[]
    >`select api_time(updated_at) as updated_at from customers where id = ${customer.id}`;
    await expectProblem(await call('PATCH', `/customers/${customer.id}`, { name: 'Sống lại' }), 404, 'not-found');
    await expectProblem(await call('POST', `/customers/${customer.id}/addresses`, { addressLine: '1 Lê Lợi' }), 404, 'not-found');
    const [after] = await db.admin<{ name: string; updatedAt: string; addresses: number }[]>`
      select name, api_time(updated_at) as updated_at, (select count(*)::int from customer_addresses where customer_id = ${customer.id}) as addresses
      from customers where id = ${customer.id}`;
    expect(after).toEqual({ name: 'Đã xoá', updatedAt: before!.updatedAt, addresses: 0 });
  });
});

describe('synchronising customers', () => {
  it('pages with an opaque cursor in (updatedAt, id) order, bound to the other parameters', async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(['pos.customers.read', 'pos.customers.create'])).key;
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1) {
      const response = await call('POST', '/customers', { name: `Khách ${index}` }, {}, otherKey);
      ids.push(((await response.json()) as { id: string }).id);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const response: Response = await call(
        'GET',
        `/customers?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        undefined,
        {},
        otherKey,
      );
      expect(response.status).toBe(200);
      const page = (await response.json()) as { data: { id: string }[]; nextCursor: string | null };
      seen.push(...page.data.map((row) => row.id));
      cursor = page.nextCursor;
      pages += 1;
    } while (cursor);
    expect(seen).toEqual(ids);
    expect(pages).toBe(3);

    const first = (await (await call('GET', '/customers?limit=2', undefined, {}, otherKey)).json()) as { nextCursor: string };
    await expectProblem(
      await call('GET', `/customers?limit=3&cursor=${encodeURIComponent(first.nextCursor)}`, undefined, {}, otherKey),
      400,
      'invalid-cursor',
    );
    await expectProblem(
      await call('GET', `/customers?limit=2&search=x&cursor=${encodeURIComponent(first.nextCursor)}`, undefined, {}, otherKey),
      400,
      'invalid-cursor',
    );
    await expectProblem(await call('GET', `/customers?limit=2&cursor=${encodeURIComponent(first.nextCursor)}`), 400, 'invalid-cursor');
    await expectProblem(await call('GET', '/customers?cursor=not-a-cursor', undefined, {}, otherKey), 400, 'invalid-cursor');
    for (const limit of ['0', '101', 'ten'])
      await expectProblem(await call('GET', `/customers?limit=${limit}`, undefined, {}, otherKey), 400, 'validation-failed');
  });

  it('applies the safety delay only with updatedSince, and includes deletions only when asked', async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(['pos.customers.read', 'pos.customers.create'])).key;
    const make = async (name: string) => ((await (await call('POST', '/customers', { name }, {}, otherKey)).json()) as { id: string }).id;
    const [old1, old2, recent] = [await make('old 1'), await make('old 2'), await make('recent')];
    await backdate([old1, old2], [60, 59]);
    const since = new Date(Date.now() - 2 * 3600_000).toISOString();
    const list = async (query: string) =>
      (
        (await (await call('GET', `/customers?${query}`, undefined, {}, otherKey)).json()) as {
          data: { id: string; deletedAt: string | null }[];
        }
      ).data;

    expect((await list(`updatedSince=${since}`)).map((row) => row.id)).toEqual([old1, old2]);
    expect((await list('')).map((row) => row.id)).toEqual([old1, old2, recent]);
    // Inclusive: a mark equal to a record's updatedAt still returns it.
    const [exact] = await db.admin<{ at: string }[]>`select api_time(updated_at) as at from customers where id = ${old2}`;
    expect((await list(`updatedSince=${exact!.at}`)).map((row) => row.id)).toEqual([old2]);

    await withShop(db.app, other.shopId, (tx) => deleteCustomer(tx, other.shopId, old1));
    expect((await list('')).map((row) => row.id)).not.toContain(old1);
    const withDeleted = await list('includeDeleted=true');
    expect(withDeleted.find((row) => row.id === old1)?.deletedAt).toMatch(/Z$/);
  });

  it("sizes the safety delay as the shop's recompute ceiling plus 15 s: 2 min 15 s by default, 10 min 15 s at most", async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(['pos.customers.read', 'pos.customers.create'])).key;
    const make = async (name: string) => ((await (await call('POST', '/customers', { name }, {}, otherKey)).json()) as { id: string }).id;
    const [inside, outside] = [await make('inside the delay'), await make('outside the delay')];
    /** Sets each customer's updatedAt that many seconds before now. */
    const backdateSeconds = (ids: string[], secondsAgo: number[]) =>
      Promise.all(
        ids.map(
          (id, index) => db.admin`update customers set updated_at = now() - make_interval(secs => ${secondsAgo[index]!}) where id = ${id}`,
        ),
      );
    const since = new Date(Date.now() - 3600_000).toISOString();
    const listed = async (query: string) =>
      ((await (await call('GET', `/customers?limit=100${query}`, undefined, {}, otherKey)).json()) as { data: { id: string }[] }).data.map(
        (row) => row.id,
      );

    // Default ceiling 2 min: 2 min ago is still inside the 2 min 15 s delay, 2 min 30 s ago is out of it.
    await backdateSeconds([inside, outside], [120, 150]);
    expect(await listed(`&updatedSince=${since}`)).toEqual([outside]);
    expect(await listed('')).toEqual([outside, inside]);

    // The largest ceiling, 10 min: the delay becomes 10 min 15 s.
    await updateShopSettings(db.app, other.shopId, { recomputeCeilingSeconds: 600 });
    expect(await listed(`&updatedSince=${since}`)).toEqual([]);
    await backdateSeconds([inside, outside], [600, 630]);
    expect(await listed(`&updatedSince=${since}`)).toEqual([outside]);
    expect(await listed('')).toEqual([outside, inside]);
    // No ceiling above 10 minutes: the delay never exceeds 10 min 15 s.
    await expect(updateShopSettings(db.app, other.shopId, { recomputeCeilingSeconds: 601 })).rejects.toThrow();
    expect(await listed(`&updatedSince=${since}`)).toEqual([outside]);
  });

  it('does not lose a record updated while paging when the next pass starts 15 minutes before the mark', async () => {
    const other = await createShopFixture(db.app);
    const otherKey = (await other.newKey(['pos.customers.read', 'pos.customers.create', 'pos.customers.update'])).key;
    const ids: string[] = [];
    for (let index = 0; index < 5; index += 1)
      ids.push(((await (await call('POST', '/customers', { name: `Sync ${index}` }, {}, otherKey)).json()) as { id: string }).id);
    await backdate(ids, [50, 40, 30, 20, 10]);
    const get = async (path: string) =>
      (await (await call('GET', path, undefined, {}, otherKey)).json()) as {
        data: { id: string; name: string; updatedAt: string }[];
        nextCursor: string | null;
      };

    const since = new Date(Date.now() - 3600_000).toISOString();
    const firstPass: { id: string; updatedAt: string }[] = [];
    let page = await get(`/customers?limit=2&updatedSince=${since}`);
    firstPass.push(...page.data);
    // While the pass goes on, the first record changes again.
    await call('PATCH', `/customers/${ids[0]}`, { name: 'Sync 0 (renamed)' }, {}, otherKey);
    while (page.nextCursor) {
      page = await get(`/customers?limit=2&updatedSince=${since}&cursor=${encodeURIComponent(page.nextCursor)}`);
      firstPass.push(...page.data);
    }
    // The renamed version is not in this pass: its new updatedAt is still inside the safety delay.
    expect(firstPass.map((row) => row.id)).toEqual(ids);
    const mark = firstPass
      .map((row) => row.updatedAt)
      .sort()
      .at(-1)!;

    // Time passes beyond the safety delay; the next pass starts 15 minutes before the stored mark.
    await db.admin`update customers set updated_at = now() - interval '3 minutes' where id = ${ids[0]!}`;
    const nextSince = new Date(new Date(mark).getTime() - 15 * 60_000).toISOString();
    const secondPass = await get(`/customers?limit=100&updatedSince=${nextSince}`);
    expect(secondPass.data.find((row) => row.id === ids[0])?.name).toBe('Sync 0 (renamed)');
  });
});
