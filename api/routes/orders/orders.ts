import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  addOrderNote,
  changeOrderStatus,
  createOrder,
  deleteOrder,
  getOrder,
  listOrderNotes,
  listOrders,
  NewOrder,
  OrderChanges,
  OrderDetail,
  OrderNote,
  OrderRow,
  OrderStatusSchema,
  updateOrder,
} from '../../../domain/orders/index.js';
import { readableOrder } from '../../../domain/events/index.js';
import { respondIdempotently } from '../../plugins/idempotency.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { IdParams, NOT_BLANK, Note } from '../../../domain/kernel/index.js';
import { pageOf, softDeleteListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

/**
 * A creation's refusals beyond W: the spec's list (404, 409 conflict and order-has-live-shipment,
 * 422 order-status-not-allowed and insufficient-stock) and what createOrder throws besides.
 */
const orderCreationProblems = [
  'not-found',
  'conflict',
  'order-has-live-shipment',
  'duplicate-code',
  'order-status-not-allowed',
  'insufficient-stock',
  'variant-removed',
  'customer-blocked',
] as const;

/** An edit's refusals beyond W (updateOrder): its goods cannot change once shipped or while a shipment lives. */
const orderEditProblems = [
  'not-found',
  'conflict',
  'order-has-live-shipment',
  'insufficient-stock',
  'variant-removed',
  'customer-blocked',
] as const;

const tags = ['Orders'];

/** Orders: a thin HTTP shape over domain/orders, domain/order-lifecycle and domain/order-notes. */
export const orderRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  // Every answer of these routes passes here: an order's line product fields only with pos.products.read.
  // (Problem bodies pass too, also for a caller refused before authentication: left as they are.)
  app.addHook('preSerialization', async (request, reply, payload) =>
    reply.statusCode >= 400 ? payload : readableOrder(payload as object, request.auth.permissions),
  );

  const actor = (auth: { shop: { id: string }; permissions: string[]; applicationId: string }) => ({
    shopId: auth.shop.id,
    permissions: auth.permissions,
    applicationId: auth.applicationId,
  });

  app.get(
    '/orders',
    {
      config: { permissions: ['pos.orders.read'] },
      schema: {
        operationId: 'listOrders',
        tags,
        summary: 'List orders, sorted by (updatedAt, id)',
        querystring: softDeleteListQuery.extend({
          status: OrderStatusSchema.optional(),
          customerId: z.uuid().optional(),
          code: z.string().min(1).max(100).optional().describe('Exact order code'),
        }),
        response: { 200: pageOf(OrderRow), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listOrders(tx, request.query, cursorBinding(deps, request, 'orders'), request.auth.shop.recomputeCeilingSeconds),
      ),
  );

  app.get(
    '/orders/:id',
    {
      config: { permissions: ['pos.orders.read'] },
      schema: {
        operationId: 'getOrder',
        summary: 'An order with its lines, payments and shipping address',
        tags,
        params: IdParams,
        response: { 200: OrderDetail, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getOrder(tx, request.params.id)),
  );

  app.post(
    '/orders',
    {
      config: { permissions: ['pos.orders.create', 'pos.products.read'] },
      schema: {
        operationId: 'createOrder',
        tags,
        summary: 'Create an order',
        body: NewOrder,
        response: { 201: OrderDetail, ...problemResponses(WRITE_PROBLEMS, orderCreationProblems, IDEMPOTENCY_PROBLEMS) },
      },
    },
    (request, reply) =>
      respondIdempotently(deps.sql, deps.publicBaseUrl, request, reply, 201, (tx) => createOrder(tx, actor(request.auth), request.body)),
  );

  app.patch(
    '/orders/:id',
    {
      config: { permissions: ['pos.orders.update'] },
      schema: {
        operationId: 'updateOrder',
        tags,
        summary: 'Change an order; lines replace the whole set',
        params: IdParams,
        body: OrderChanges,
        response: { 200: OrderDetail, ...problemResponses(WRITE_PROBLEMS, orderEditProblems) },
      },
    },
    (request) => request.inShop((tx) => updateOrder(tx, actor(request.auth), request.params.id, request.body)),
  );

  app.post(
    '/orders/:id/status',
    {
      config: { permissions: ['pos.orders.update'] },
      schema: {
        operationId: 'changeOrderStatus',
        tags,
        summary: 'Move an order to another state of the transition matrix',
        params: IdParams,
        body: z.strictObject({ status: OrderStatusSchema, reason: Note.optional() }),
        response: { 200: OrderDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found', 'order-status-not-allowed', 'insufficient-stock') },
      },
    },
    (request) => request.inShop((tx) => changeOrderStatus(tx, actor(request.auth), request.params.id, request.body)),
  );

  app.delete(
    '/orders/:id',
    {
      config: { permissions: ['pos.orders.delete'] },
      schema: {
        operationId: 'deleteOrder',
        tags,
        summary: 'Delete an order (status deleted)',
        params: IdParams,
        response: { 200: OrderDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found', 'insufficient-stock') },
      },
    },
    (request) => request.inShop((tx) => deleteOrder(tx, request.auth.shop.id, request.params.id)),
  );

  app.get(
    '/orders/:id/notes',
    {
      config: { permissions: ['pos.orders.read'] },
      schema: {
        operationId: 'listOrderNotes',
        tags,
        summary: 'Notes, newest first',
        params: IdParams,
        response: { 200: z.object({ data: z.array(OrderNote) }), ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    async (request) => ({ data: await request.inShop((tx) => listOrderNotes(tx, request.params.id)) }),
  );

  app.post(
    '/orders/:id/notes',
    {
      config: { permissions: ['pos.orders.update'] },
      schema: {
        operationId: 'addOrderNote',
        tags,
        summary: 'Add a note written by this application',
        params: IdParams,
        body: z.strictObject({ message: z.string().trim().min(1).max(5000).meta(NOT_BLANK) }),
        response: { 201: OrderNote, ...problemResponses(WRITE_PROBLEMS, 'not-found') },
      },
    },
    async (request, reply) => {
      const note = await request.inShop((tx) =>
        addOrderNote(tx, request.auth.shop.id, request.params.id, {
          message: request.body.message,
          applicationId: request.auth.applicationId,
          applicationName: request.auth.applicationName,
        }),
      );
      return reply.status(201).send(note);
    },
  );
};
