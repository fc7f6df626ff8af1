import { beforeAll, describe, expect, it } from 'vitest';
import { createShopFixture } from '../support/fixtures.js';
import { useSuite } from '../support/suite.js';
import { createApplication, updateApplication, MAX_APPLICATIONS_PER_SHOP } from '../../domain/access/applications.js';
import { rotateKey } from '../../domain/access/api-keys.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { addMember } from '../../domain/access/users.js';

const { db, shop } = useSuite({ shop: true });
let clerkId: string;

beforeAll(async () => {
  await withShop(
    db.app,
    shop.shopId,
    (tx) => tx`
    insert into roles (shop_id, name, permissions)
    values (${shop.shopId}, 'Clerk', ${['pos.orders.read', 'pos.orders.create', 'automation.connections.manage']})`,
  );
  clerkId = (await addMember(db.app, shop.shopId, { email: 'clerk@shop.test', name: 'Clerk', role: 'Clerk' })).id;
});

const create = (permissions: string[], actor: string | null, extra: { pages?: 'all' | string[] } = {}) =>
  withShop(db.app, shop.shopId, (tx) => createApplication(tx, shop.shopId, { name: 'App', permissions, ...extra }, actor));

describe('granting limits', () => {
  it('never grants more than the granting person holds', async () => {
    await expect(create(['pos.orders.read', 'pos.products.read'], clerkId)).rejects.toMatchObject({
      code: 'insufficient-permission',
      detail: expect.stringContaining('pos.products.read'),
    });
    await expect(create(['pos.orders.read'], clerkId)).resolves.toMatchObject({ applicationId: expect.any(String) });
  });

  it('never grants settings.* or automation.* permissions, even to the owner', async () => {
    await expect(create(['settings.members'], shop.ownerId)).rejects.toMatchObject({ code: 'insufficient-permission' });
    await expect(create(['automation.connections.manage'], shop.ownerId)).rejects.toMatchObject({ code: 'insufficient-permission' });
    await expect(create(['pos.orders.fly'], shop.ownerId)).rejects.toMatchObject({ code: 'validation-failed' });
  });

  it('needs automation.connections.manage to create an application', async () => {
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`insert into roles (shop_id, name, permissions) values (${shop.shopId}, 'Reader', ${['pos.orders.read']})`,
    );
    const reader = await addMember(db.app, shop.shopId, { email: 'reader@shop.test', name: 'Reader', role: 'Reader' });
    await expect(create(['pos.orders.read'], reader.id)).rejects.toMatchObject({
      code: 'insufficient-permission',
      detail: expect.stringContaining('automation.connections.manage'),
    });
  });

  it('re-checks the limits on rotation and on edits', async () => {
    const { applicationId } = await create(['pos.orders.read', 'pos.orders.create'], clerkId);
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`update roles set permissions = ${['pos.orders.read', 'automation.connections.manage']} where name = 'Clerk'`,
    );
    await expect(withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, clerkId))).rejects.toMatchObject({
      code: 'insufficient-permission',
    });
    await expect(
      withShop(db.app, shop.shopId, (tx) =>
        updateApplication(tx, applicationId, { permissions: ['pos.orders.read', 'pos.orders.create'] }, clerkId),
      ),
    ).rejects.toMatchObject({ code: 'insufficient-permission' });
    await withShop(db.app, shop.shopId, (tx) => updateApplication(tx, applicationId, { permissions: ['pos.orders.read'] }, clerkId));
    await expect(withShop(db.app, shop.shopId, (tx) => rotateKey(tx, applicationId, clerkId))).resolves.toMatchObject({
      key: expect.any(String),
    });
  });

  it('gives chat pages only with a chat permission, and only pages the granting person sees', async () => {
    const [page] = await withShop(
      db.app,
      shop.shopId,
      (tx) => tx<{ id: string }[]>`insert into pages (shop_id, name) values (${shop.shopId}, 'Fanpage') returning id`,
    );
    const withChat = await create(['social.pages.read'], shop.ownerId, { pages: 'all' });
    const withoutChat = await create(['pos.orders.read'], shop.ownerId, { pages: 'all' });
    const pages = await withShop(
      db.app,
      shop.shopId,
      (tx) =>
        tx<
          { id: string; pageIds: string[] }[]
        >`select id, page_ids from applications where id in (${withChat.applicationId}, ${withoutChat.applicationId})`,
    );
    expect(Object.fromEntries(pages.map((row) => [row.id, row.pageIds]))).toEqual({
      [withChat.applicationId]: [page!.id],
      [withoutChat.applicationId]: [],
    });
    // A page absent from the shop: detail only, naming the path and the id.
    const missing = '00000000-0000-4000-8000-000000000000';
    const refused = await create(['social.pages.read'], shop.ownerId, { pages: [page!.id, missing] }).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(refused).toMatchObject({ code: 'validation-failed', detail: expect.stringContaining(`pages.1: no such page`) });
    expect((refused as { detail: string }).detail).toContain(missing);
    expect((refused as { options: { errors?: unknown } }).options.errors).toBeUndefined();
  });
});

describe('application count', () => {
  it(`allows at most ${MAX_APPLICATIONS_PER_SHOP} applications per shop, even when created concurrently`, async () => {
    const other = await createShopFixture(db.app);
    const attempts = await Promise.allSettled(
      Array.from({ length: 13 }, (_, index) =>
        withShop(db.app, other.shopId, (tx) =>
          createApplication(tx, other.shopId, { name: `App ${index}`, permissions: [] }, other.ownerId),
        ),
      ),
    );
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(MAX_APPLICATIONS_PER_SHOP);
    const refused = attempts.filter((attempt): attempt is PromiseRejectedResult => attempt.status === 'rejected');
    expect(refused.map((attempt) => (attempt.reason as { code: string }).code)).toEqual(['conflict', 'conflict', 'conflict']);
  });
});
