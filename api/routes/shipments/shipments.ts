import type { KeyObject } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { IdParams, Note } from '../../../domain/kernel/index.js';
import { prepareShipmentPush } from '../../../domain/orders/index.js';
import {
  createdShipmentSchema,
  getShipment,
  listShipments,
  pushRequestSchema,
  requestCancel,
  shipmentDetail,
  shipmentDetailSchema,
  shipmentListRowSchema,
  shipmentStateSchema,
} from '../../../domain/shipments/index.js';
import { cancelShipment, pushShipment, retriedPush, type ShipmentStarter } from '../../../workflows/shipments/shipment-starter.js';
import { respondIdempotentlyAfter } from '../../plugins/idempotency.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { pageOf, syncListQuery } from '../../schemas/list-query.js';
import { IDEMPOTENCY_PROBLEMS, LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const tags = ['Shipments'];
const READ_PERMISSIONS = ['pos.shipping.read', 'pos.orders.read'];

/** A push's refusals beyond W (spec), and 409 for a switched-off connection or an address carriers cannot take. */
const pushProblems = ['not-found', 'conflict', 'order-status-not-allowed', 'insufficient-stock', 'carrier-unavailable'] as const;

/** Shipments: a thin HTTP shape over domain/shipments, domain/orders' shipping side and the shipment workflows. */
export const shipmentRoutes: FastifyPluginAsyncZod<RouteDeps & { shipments: ShipmentStarter; secretsKey: KeyObject }> = async (
  app,
  deps,
) => {
  app.get(
    '/shipments',
    {
      config: { permissions: READ_PERMISSIONS },
      schema: {
        operationId: 'listShipments',
        tags,
        summary: 'List shipments, sorted by (updatedAt, id)',
        querystring: syncListQuery.extend({ status: shipmentStateSchema.optional(), orderId: z.uuid().optional() }),
        response: { 200: pageOf(shipmentListRowSchema), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listShipments(tx, request.query, cursorBinding(deps, request, 'shipments'), request.auth.shop.recomputeCeilingSeconds),
      ),
  );

  app.get(
    '/shipments/:id',
    {
      config: { permissions: READ_PERMISSIONS },
      schema: {
        operationId: 'getShipment',
        summary: 'A shipment with its itinerary',
        tags,
        params: IdParams,
        response: { 200: shipmentDetailSchema, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getShipment(tx, request.params.id)),
  );

  app.post(
    '/shipments',
    {
      config: { permissions: ['pos.shipping.read', 'pos.orders.update', 'pos.products.read'], rateCounter: 'shipments' },
      schema: {
        operationId: 'createShipment',
        tags,
        summary: 'Push an order to a carrier',
        description:
          "Awaits the carrier for a bounded time. After a 503 the push may still go through: the same request with the same Idempotency-Key answers what became of it (the shipment, or the carrier's refusal), never pushing twice; without a key, read GET /shipments?orderId= before retrying.",
        body: pushRequestSchema,
        response: { 201: createdShipmentSchema, ...problemResponses(WRITE_PROBLEMS, pushProblems, IDEMPOTENCY_PROBLEMS) },
      },
    },
    (request, reply) =>
      respondIdempotentlyAfter(deps.sql, deps.publicBaseUrl, request, reply, 201, async (resumable) => {
        const { shop, permissions, applicationId } = request.auth;
        // The same request after a 503: the push it started, not another.
        if (resumable.earlier)
          return retriedPush(deps.shipments, { shipmentId: resumable.earlier, orderId: request.body.orderId }, () =>
            request.inShop((tx) => shipmentDetail(tx, resumable.earlier!)),
          );
        const push = await request.inShop((tx) =>
          prepareShipmentPush(tx, { shopId: shop.id, permissions, applicationId }, request.body, deps.secretsKey),
        );
        resumable.leave(push.shipmentId);
        return pushShipment(deps.shipments, {
          shopId: shop.id,
          shipmentId: push.shipmentId,
          orderId: request.body.orderId,
          orderCode: push.orderCode,
          carrier: push.carrier,
          connectionId: request.body.connectionId,
          applicationId,
          request: push.request,
          connection: push.connection,
        });
      }),
  );

  app.post(
    '/shipments/:id/cancel',
    {
      config: { permissions: ['pos.shipping.read', 'pos.orders.update'], rateCounter: 'shipments' },
      schema: {
        operationId: 'cancelShipment',
        tags,
        summary: 'Cancel a shipment that has not ended; the carrier decides',
        params: IdParams,
        body: z.strictObject({ reason: Note.optional().describe('Stored in the shop log') }).nullish(),
        response: {
          200: shipmentDetailSchema,
          ...problemResponses(WRITE_PROBLEMS, 'not-found', 'shipment-not-cancellable', 'carrier-unavailable'),
        },
      },
    },
    async (request) => {
      const { shop, applicationId } = request.auth;
      const shipmentId = request.params.id;
      const cancel = await request.inShop((tx) => requestCancel(tx, shipmentId));
      return cancelShipment(
        deps.shipments,
        {
          shopId: shop.id,
          shipmentId,
          orderId: cancel.orderId,
          orderCode: cancel.orderCode,
          trackingCode: cancel.trackingCode,
          carrier: cancel.carrier,
          request: cancel.request,
        },
        {
          shopId: shop.id,
          shipmentId,
          connectionId: cancel.connectionId,
          trackingCode: cancel.trackingCode,
          applicationId,
          reason: request.body?.reason ?? null,
        },
      );
    },
  );
};
