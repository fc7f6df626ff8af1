import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertHolds } from '../../domain/access/index.js';
import { createWarehouse, deleteWarehouse, listWarehouses, updateWarehouse } from '../../domain/inventory/index.js';
import { IdParams, Name, NoContent, type Tx } from '../../domain/kernel/index.js';
import {
  changeShopStatusMatrix,
  createPaymentMethod,
  createSalesChannel,
  createTag,
  DEFAULT_STATUS_MATRIX,
  listPaymentMethods,
  listSalesChannels,
  listTags,
  ORDER_STATUSES,
  PAYMENT_METHOD_KINDS,
  removeOrderListEntry,
  shopStatusMatrix,
  updateOrderListEntry,
  type OrderList,
} from '../../domain/orders/index.js';
import { refuseRemovingPickUpWarehouse } from '../../domain/shipments/index.js';
import { PaymentMethod, SalesChannel, Tag, Warehouse } from './reference-lists.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../schemas/problem.js';

const tags = ['Admin: shop set-up'];
const readProblems = problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission');
const changeProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission');
/**
 * Each list has a per-shop cap (domain/kernel/shop-caps.ts), which also bounds the list answered
 * whole; a name is unique in the orders' lists (409 `conflict` with a field error on `name`), which
 * orders pick from by name (a warehouse also has its address).
 */
const createProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'limit-reached', 'conflict');
/** A rename to a name taken, or the removal of an entry still in use (`usedBy`, `uses`), is 409 `conflict`. */
const entryProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'conflict');

/** May the member change (`manage`), or at least read (`manage` or one of `read`)? 403 otherwise. */
function guard(manage: string, read: readonly string[]) {
  return {
    manage: (request: FastifyRequest) => assertHolds(request.admin.permissions, [manage], 'changing the shop set-up'),
    view: (request: FastifyRequest) => {
      if (!read.some((permission) => request.admin.permissions.includes(permission))) {
        assertHolds(request.admin.permissions, [manage], 'reading the shop set-up');
      }
    },
  };
}

const Transition = z.tuple([z.enum(ORDER_STATUSES), z.enum(ORDER_STATUSES)]);
const StatusMatrix = z.record(z.string(), z.array(z.string()).readonly()).describe('From each status, the statuses an order may move to');

/**
 * Shop set-up of the admin web app: the lists a new shop needs before it takes orders (warehouses,
 * tags, payment methods, sales channels), and the narrowing of its order status matrix.
 */
export const adminSetupRoutes: FastifyPluginAsyncZod = async (app) => {
  /** A list, its creation, an entry's change and removal; the schemas check both sides (a change takes part of the creation's input). */
  const setupList = (
    path: string,
    access: ReturnType<typeof guard>,
    row: z.ZodType,
    input: z.ZodObject,
    list: (tx: Tx) => Promise<unknown[]>,
    create: (tx: Tx, shopId: string, body: never) => Promise<unknown>,
    update: (tx: Tx, shopId: string, id: string, body: never) => Promise<unknown>,
    remove: (tx: Tx, id: string) => Promise<void>,
  ) => {
    app.get(path, { schema: { tags, response: { 200: z.object({ data: z.array(row) }), ...readProblems } } }, async (request) => {
      access.view(request);
      return { data: await request.inShop(list) };
    });
    app.post(path, { schema: { tags, body: input, response: { 201: row, ...createProblems } } }, async (request, reply) => {
      access.manage(request);
      return reply.status(201).send(await request.inShop((tx) => create(tx, request.admin.shopId, request.body as never)));
    });
    app.patch(
      `${path}/:id`,
      { schema: { tags, params: IdParams, body: input.partial(), response: { 200: row, ...entryProblems } } },
      async (request) => {
        access.manage(request);
        return request.inShop((tx) => update(tx, request.admin.shopId, request.params.id, request.body as never));
      },
    );
    app.delete(
      `${path}/:id`,
      { schema: { tags, params: IdParams, response: { 204: NoContent, ...entryProblems } } },
      async (request, reply) => {
        access.manage(request);
        await request.inShop((tx) => remove(tx, request.params.id));
        return reply.status(204).send();
      },
    );
  };
  /** The change and removal of an entry of one of the orders module's lists. */
  const orderList = (list: OrderList) =>
    [
      (tx: Tx, shopId: string, id: string, body: never) => updateOrderListEntry(tx, shopId, list, id, body),
      (tx: Tx, id: string) => removeOrderListEntry(tx, list, id),
    ] as const;

  const salesSetUp = guard('settings.sales_channels', ['pos.orders.read']);
  setupList(
    '/warehouses',
    guard('pos.inventory.update', ['pos.products.read', 'pos.inventory.read']),
    Warehouse,
    z.strictObject({ name: Name, address: z.string().trim().max(500).nullish() }),
    listWarehouses,
    createWarehouse,
    (tx, _shopId, id, body) => updateWarehouse(tx, id, body),
    async (tx, id) => {
      await refuseRemovingPickUpWarehouse(tx, id);
      await deleteWarehouse(tx, id);
    },
  );
  setupList('/tags', salesSetUp, Tag, z.strictObject({ name: Name }), listTags, createTag, ...orderList('tags'));
  setupList(
    '/payment-methods',
    salesSetUp,
    PaymentMethod,
    z.strictObject({ name: Name, kind: z.enum(PAYMENT_METHOD_KINDS) }),
    listPaymentMethods,
    createPaymentMethod,
    ...orderList('paymentMethods'),
  );
  setupList(
    '/sales-channels',
    salesSetUp,
    SalesChannel,
    z.strictObject({ name: Name }),
    listSalesChannels,
    createSalesChannel,
    ...orderList('salesChannels'),
  );

  const Matrices = z.object({ matrix: StatusMatrix, defaultMatrix: StatusMatrix });
  const matrices = async (tx: Tx) => ({ matrix: await shopStatusMatrix(tx), defaultMatrix: DEFAULT_STATUS_MATRIX });
  app.get(
    '/order-statuses',
    { schema: { tags, summary: "The shop's order status matrix beside the default", response: { 200: Matrices, ...readProblems } } },
    async (request) => {
      salesSetUp.view(request);
      return request.inShop(matrices);
    },
  );
  app.post(
    '/order-statuses',
    {
      schema: {
        tags,
        summary: 'Narrow the matrix (remove default moves) or give moves back (restore)',
        body: z.strictObject({ remove: z.array(Transition).max(100).optional(), restore: z.array(Transition).max(100).optional() }),
        response: { 200: Matrices, ...changeProblems },
      },
    },
    async (request) => {
      salesSetUp.manage(request);
      return request.inShop(async (tx) => {
        await changeShopStatusMatrix(tx, request.admin.shopId, request.body, request.admin.userId);
        return matrices(tx);
      });
    },
  );
};
