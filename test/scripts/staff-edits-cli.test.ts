import { beforeAll, describe, expect, it } from 'vitest';
import { ALL_PERMISSIONS } from '../../domain/access/permissions.js';
import { createProduct } from '../../domain/catalog/index.js';
import { createCustomer } from '../../domain/customers/index.js';
import { withShop } from '../../domain/kernel/tenancy.js';
import { adminCliJson, runAdminCli } from '../support/admin-cli.js';
import { useSuite } from '../support/suite.js';

// The staff edits from the admin CLI: each a call into its module, writing its event to the outbox.
const { db, shop } = useSuite({ shop: true });
const admin = (...args: string[]) => runAdminCli(db.appUrl, args);
const json = <T>(...args: string[]) => adminCliJson<T>(db.appUrl, args);
let customerId: string;
let productId: string;
let variantId: string;

beforeAll(async () => {
  await withShop(db.app, shop.shopId, async (tx) => {
    customerId = (await createCustomer(tx, shop.shopId, { name: 'Phạm Hà', contacts: [{ kind: 'phone', value: '0977 000 111' }] })).id;
    const product = await createProduct(
      tx,
      { shopId: shop.shopId, permissions: ALL_PERMISSIONS },
      { name: 'Giày', variants: [{ price: '1' }] },
    );
    productId = product.id;
    variantId = product.variants[0]!.id;
  });
});

/** The outbox rows of a record after its creation, oldest first. */
const outbox = (resourceId: string) =>
  db.admin<{ type: string; changes: { fields: string[] } | null; data: Record<string, unknown> }[]>`
    select type, changes, data from events where resource_id = ${resourceId} and type not like '%.created' order by id`;

describe('the staff edits of the admin CLI', () => {
  it("customer:contacts sets a customer's phones and e-mails, the first of each primary, emitting customer.updated", async () => {
    const result = await json<{ customerId: string; contacts: { kind: string; value: string; isPrimary: boolean }[]; updatedAt: string }>(
      'customer:contacts',
      '--shop',
      shop.slug,
      '--customer',
      customerId,
      '--phones',
      '0977000111,0988 000 222',
      '--emails',
      'Ha@Shop.test',
    );
    expect(result.contacts.map(({ kind, value, isPrimary }) => ({ kind, value, isPrimary }))).toEqual([
      { kind: 'phone', value: '+84977000111', isPrimary: true },
      { kind: 'phone', value: '+84988000222', isPrimary: false },
      { kind: 'email', value: 'ha@shop.test', isPrimary: true },
    ]);
    const [event] = await outbox(customerId);
    expect(event).toMatchObject({ type: 'customer.updated', changes: { fields: ['primaryEmail', 'contacts'] } });
    expect(event!.data).toMatchObject({ contacts: result.contacts, updatedAt: result.updatedAt });

    // Bad input exits 2, a refused edit 1 (a phone another customer holds), changing nothing.
    expect(await admin('customer:contacts', '--shop', shop.slug, '--customer', customerId)).toMatchObject({ code: 2, stdout: '' });
    const badEmail = await admin('customer:contacts', '--shop', shop.slug, '--customer', customerId, '--emails', 'not-an-address');
    expect(badEmail).toMatchObject({ code: 2, stdout: '' });
    expect(badEmail.stderr).toMatch(/contacts\.0\.value/);
    await withShop(db.app, shop.shopId, (tx) =>
      createCustomer(tx, shop.shopId, { name: 'Khác', contacts: [{ kind: 'phone', value: '0999 000 333' }] }),
    );
    const taken = await admin('customer:contacts', '--shop', shop.slug, '--customer', customerId, '--phones', '0999000333');
    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toMatch(/conflict/);
    expect(await outbox(customerId)).toHaveLength(1);
  });

  it('product:images sets the images in order, keeping the variants of one kept, emitting product.updated', async () => {
    await withShop(
      db.app,
      shop.shopId,
      (tx) => tx`
        insert into product_images (shop_id, product_id, url, variant_ids, position)
        values (${shop.shopId}, ${productId}, 'https://cdn.shop.test/side.jpg', ${[variantId]}, 0)`,
    );
    const result = await json<{ images: { url: string; variantIds: string[] }[] }>(
      'product:images',
      '--shop',
      shop.slug,
      '--product',
      productId,
      '--urls',
      'https://cdn.shop.test/front.jpg,https://cdn.shop.test/side.jpg',
    );
    expect(result.images.map(({ url, variantIds }) => ({ url, variantIds }))).toEqual([
      { url: 'https://cdn.shop.test/front.jpg', variantIds: [] },
      { url: 'https://cdn.shop.test/side.jpg', variantIds: [variantId] },
    ]);
    expect(await outbox(productId)).toEqual([
      { type: 'product.updated', changes: { fields: ['images'] }, data: expect.objectContaining({ images: result.images }) },
    ]);
    // An empty list removes every image.
    expect(await json('product:images', '--shop', shop.slug, '--product', productId, '--urls', '')).toMatchObject({ images: [] });
    expect(await admin('product:images', '--shop', shop.slug, '--product', productId, '--urls', 'ftp://x.test/a.jpg')).toMatchObject({
      code: 2,
      stdout: '',
    });
  });

  it('customer:delete soft-deletes a customer once, emitting customer.deleted', async () => {
    const result = await json<{ customerId: string; deletedAt: string }>('customer:delete', '--shop', shop.slug, '--customer', customerId);
    expect(result.deletedAt).toMatch(/Z$/);
    expect((await outbox(customerId)).at(-1)).toMatchObject({
      type: 'customer.deleted',
      changes: null,
      data: { deletedAt: result.deletedAt },
    });
    const again = await admin('customer:delete', '--shop', shop.slug, '--customer', customerId);
    expect(again).toMatchObject({ code: 1, stdout: '' });
    expect(again.stderr).toMatch(/not-found/);
    expect((await admin('--help')).stderr).toMatch(/customer:contacts[\s\S]*customer:delete[\s\S]*product:images/);
  });
});
