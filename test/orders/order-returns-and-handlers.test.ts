import { describe, expect, it } from 'vitest';
import { addMember, updateMember } from '../../domain/access/users.js';
import { createShopFixture } from '../support/fixtures.js';
import { adminCliJson, runAdminCli } from '../support/admin-cli.js';
import { useOrderSuite, type Order } from './order-kit.js';

/** Returns through the admin CLI, and how an order's handler is chosen. */
const { db, shop, arrange, call, newWarehouse, newVariant, stockOf, eventsOf, createOrder, setStatus } = useOrderSuite();

describe('returns', () => {
  it('records returned goods and money through the admin CLI; switching refund and exchange names exchangeReturn', async () => {
    const variantId = await newVariant({ stock: '5' });
    const order = await createOrder({ lines: [{ variantId, quantity: '3', unitPrice: '100000', discount: '30000' }] });
    const replacement = await createOrder({ lines: [{ variantId, quantity: '1', unitPrice: '100000' }] });
    await setStatus(order.id, 'confirmed');
    await setStatus(order.id, 'shipped');
    const lineId = order.lines![0]!.id!;
    const cli = (...args: string[]) => runAdminCli(db.appUrl, args);

    const tooMany = await cli('order:return', '--shop', shop.slug, '--order', order.id, '--lines', `${lineId}:4`);
    expect({ code: tooMany.code, stdout: tooMany.stdout }).toEqual({ code: 1, stdout: '' });
    expect(tooMany.stderr).toContain('0 of 3 already returned (validation-failed)');
    expect((await cli('order:return', '--shop', shop.slug, '--order', order.id, '--lines', `${lineId}:1.2345`)).code).toBe(2);
    const unshipped = await cli(
      'order:return',
      '--shop',
      shop.slug,
      '--order',
      replacement.id,
      '--lines',
      `${replacement.lines![0]!.id!}:1`,
    );
    expect(unshipped.stderr).toContain('has no goods with the customer (conflict)');

    const returned = await adminCliJson(db.appUrl, [
      'order:return',
      '--shop',
      shop.slug,
      '--order',
      order.id,
      '--lines',
      `${lineId}:1`,
      '--exchange',
      '--credit-order',
      replacement.id,
    ]);
    expect(returned).toEqual({ returnId: expect.any(String), orderId: order.id, returnedAmount: '90000', exchangeReturn: true });
    expect(await (await call('GET', `/orders/${order.id}`)).json()).toMatchObject({
      returnedAmount: '90000',
      exchangeReturn: true,
      lines: [{ returnedQuantity: '1' }],
    });
    expect(await stockOf(variantId)).toEqual({ quantity: '3', reserved: '1' });
    const reviewed = await adminCliJson(db.appUrl, [
      'order:return-review',
      '--shop',
      shop.slug,
      '--return',
      returned.returnId!,
      '--exchange',
      'false',
    ]);
    expect(reviewed).toEqual({ returnId: returned.returnId, orderId: order.id, exchangeReturn: false });
    const updates = (await eventsOf(order.id)).filter((event) => event.type === 'order.updated').map((event) => event.changes);
    expect(updates).toEqual([{ fields: ['returnedAmount', 'exchangeReturn', 'lines'] }, { fields: ['exchangeReturn'] }]);
    const credited = (await (await call('GET', `/orders/${replacement.id}`)).json()) as Order;
    expect(credited.creditApplied).toBe('90000');
  });
});

describe('handler assignment', () => {
  it('falls from an unusable named user to the next tier, and round-robins a role evenly under concurrency', async () => {
    const roleShop = await createShopFixture(db.app);
    const key = (await roleShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(roleShop);
    const variantId = await newVariant({ fixture: roleShop, warehouse, stock: '1000' });
    const [role] = await arrange(
      (tx) =>
        tx<
          { id: string }[]
        >`insert into roles (shop_id, name, permissions) values (${roleShop.shopId}, 'Sales', ${['pos.orders.update']}) returning id`,
      roleShop,
    );
    const sellers = await Promise.all(
      [1, 2, 3, 4].map((n) => addMember(db.app, roleShop.shopId, { email: `s${n}@${roleShop.slug}.test`, name: `S${n}`, role: 'Sales' })),
    );
    const locked = await addMember(db.app, roleShop.shopId, { email: `locked@${roleShop.slug}.test`, name: 'Locked', role: 'Sales' });
    await db.admin`update users set locked = true where id = ${locked.id}`;
    const body = (extra: Record<string, unknown>) => ({
      warehouseId: warehouse,
      lines: [{ variantId, quantity: '1', unitPrice: '100000' }],
      ...extra,
    });
    const post = (extra: Record<string, unknown>) => call('POST', '/orders', body(extra), key);

    const named = (await (await post({ handlerUserId: locked.id, handlerRoleId: null })).json()) as Order;
    expect(named.handlerUserId).toBe(roleShop.ownerId);
    const responses = await Promise.all(Array.from({ length: 20 }, () => post({ handlerRoleId: role!.id })));
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    const counts = new Map<string | null, number>();
    for (const handler of handlers) counts.set(handler, (counts.get(handler) ?? 0) + 1);
    expect(Object.fromEntries(counts)).toEqual(Object.fromEntries(sellers.map((seller) => [seller.id, 5])));
  });

  it('falls from a named role with no usable member to the next tier (rule 5), whatever makes the role unusable', async () => {
    const emptyShop = await createShopFixture(db.app);
    const key = (await emptyShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(emptyShop);
    const variantId = await newVariant({ fixture: emptyShop, warehouse, stock: '100' });
    const roles = await arrange(
      (tx) => tx<{ id: string; name: string }[]>`
        insert into roles (shop_id, name, permissions, sees_only_own_orders)
        values (${emptyShop.shopId}, 'Own', ${['pos.orders.update']}, true), (${emptyShop.shopId}, 'Nobody', ${['pos.orders.update']}, false),
               (${emptyShop.shopId}, 'Locked', ${['pos.orders.update']}, false), (${emptyShop.shopId}, 'Left', ${['pos.orders.update']}, false),
               (${emptyShop.shopId}, 'Viewers', ${['pos.orders.read']}, false)
        returning id, name`,
      emptyShop,
    );
    const roleId = (name: string) => roles.find((role) => role.name === name)!.id;
    const member = (name: string, role: string) =>
      addMember(db.app, emptyShop.shopId, { email: `${name}@${emptyShop.slug}.test`, name, role });
    const own = await member('own', 'Own');
    await db.admin`update users set locked = true where id = ${(await member('locked', 'Locked')).id}`;
    await updateMember(db.app, emptyShop.shopId, (await member('gone', 'Left')).id, { status: 'left' });
    await member('viewer', 'Viewers');

    for (const name of ['Nobody', 'Locked', 'Left', 'Viewers']) {
      const response = await call(
        'POST',
        '/orders',
        { warehouseId: warehouse, handlerRoleId: roleId(name), lines: [{ variantId, quantity: '1', unitPrice: '100000' }] },
        key,
      );
      expect(response.status, `${name}: ${await response.clone().text()}`).toBe(201);
      // The next tier: the role that sees only its own orders.
      expect(((await response.json()) as Order).handlerUserId, name).toBe(own.id);
    }
  });

  it('keeps the handler’s name on the order after the handler has left the shop', async () => {
    const leaverShop = await createShopFixture(db.app);
    const key = (await leaverShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(leaverShop);
    const variantId = await newVariant({ fixture: leaverShop, warehouse, stock: '10' });
    await arrange(
      (tx) => tx`insert into roles (shop_id, name, permissions) values (${leaverShop.shopId}, 'Sales', ${['pos.orders.update']})`,
      leaverShop,
    );
    const leaver = await addMember(db.app, leaverShop.shopId, { email: `lan@${leaverShop.slug}.test`, name: 'Lan Leaver', role: 'Sales' });
    const response = await call(
      'POST',
      '/orders',
      { warehouseId: warehouse, handlerUserId: leaver.id, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] },
      key,
    );
    const order = (await response.json()) as Order;
    expect(order).toMatchObject({ handlerUserId: leaver.id, handlerName: 'Lan Leaver' });

    await updateMember(db.app, leaverShop.shopId, leaver.id, { status: 'left' });
    const staff = (await (await call('GET', '/staff', undefined, key)).json()) as { data: { id: string }[] };
    expect(staff.data.map((person) => person.id)).not.toContain(leaver.id);
    expect(await (await call('GET', `/orders/${order.id}`, undefined, key)).json()).toMatchObject({
      handlerUserId: leaver.id,
      handlerName: 'Lan Leaver',
    });
    const listed = (await (await call('GET', `/orders?code=${encodeURIComponent(order.code)}`, undefined, key)).json()) as {
      data: Order[];
    };
    expect(listed.data).toEqual([expect.objectContaining({ handlerUserId: leaver.id, handlerName: 'Lan Leaver' })]);
  });

  it('without a choice round-robins the roles that see only their own orders', async () => {
    const ownShop = await createShopFixture(db.app);
    const key = (await ownShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(ownShop);
    const variantId = await newVariant({ fixture: ownShop, warehouse, stock: '1000' });
    await arrange(
      (tx) =>
        tx`insert into roles (shop_id, name, permissions, sees_only_own_orders) values (${ownShop.shopId}, 'Own', ${['pos.orders.update']}, true)`,
      ownShop,
    );
    const members = await Promise.all(
      [1, 2].map((n) => addMember(db.app, ownShop.shopId, { email: `o${n}@${ownShop.slug}.test`, name: `O${n}`, role: 'Own' })),
    );
    const responses = await Promise.all(
      Array.from({ length: 20 }, () =>
        call('POST', '/orders', { warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }, key),
      ),
    );
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    expect(members.map((member) => handlers.filter((handler) => handler === member.id).length)).toEqual([10, 10]);
  });

  it('without such roles round-robins the three users with the most orders in the last 30 days', async () => {
    const busyShop = await createShopFixture(db.app);
    const key = (await busyShop.newKey(['pos.orders.create', 'pos.orders.read', 'pos.products.read'])).key;
    const warehouse = await newWarehouse(busyShop);
    const variantId = await newVariant({ fixture: busyShop, warehouse, stock: '1000' });
    await arrange(
      (tx) => tx`insert into roles (shop_id, name, permissions) values (${busyShop.shopId}, 'Sales', ${['pos.orders.update']})`,
      busyShop,
    );
    const members = await Promise.all(
      [1, 2, 3, 4].map((n) => addMember(db.app, busyShop.shopId, { email: `s${n}@${busyShop.slug}.test`, name: `S${n}`, role: 'Sales' })),
    );
    // Recent orders 5, 4, 3 and 1; the fourth user's many older orders do not count.
    const history: [number, number, number][] = [
      [0, 5, 2],
      [1, 4, 3],
      [2, 3, 4],
      [3, 1, 5],
      [3, 10, 40],
    ];
    for (const [member, count, daysAgo] of history) {
      await arrange(
        (tx) => tx`
        insert into orders (shop_id, code, warehouse_id, handler_user_id, created_at)
        select ${busyShop.shopId}, ${`H${member}-${daysAgo}-`} || i, ${warehouse}, ${members[member]!.id}, now() - make_interval(days => ${daysAgo})
        from generate_series(1, ${count}) as i`,
        busyShop,
      );
    }
    const responses = await Promise.all(
      Array.from({ length: 6 }, () =>
        call('POST', '/orders', { warehouseId: warehouse, lines: [{ variantId, quantity: '1', unitPrice: '100000' }] }, key),
      ),
    );
    const handlers = await Promise.all(responses.map(async (response) => ((await response.json()) as Order).handlerUserId));
    expect(members.map((member) => handlers.filter((handler) => handler === member.id).length)).toEqual([2, 2, 2, 0]);
  });
});
