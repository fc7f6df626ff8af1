import type { KeyObject } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { assertHolds } from '../../../domain/access/index.js';
import { IdParams } from '../../../domain/kernel/index.js';
import {
  carrierConnectionSchema,
  connectCarrierInputSchema,
  connectCarrierWithCallbackUrl,
  disconnectCarrier,
  listCarrierConnections,
  type CarrierEndpoints,
} from '../../../domain/shipments/index.js';
import { ADMIN_READ_PROBLEMS, ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

export interface AdminCarrierConnectionDeps {
  /** Seals the credentials and the callback secret. */
  secretsKey: KeyObject;
  /** The callback URL is built on it. */
  publicBaseUrl: string;
  /** Where a connection may point (settings `CARRIER_A_HOSTS`, `CARRIER_B_HOSTS`). */
  endpoints: CarrierEndpoints;
}

const tags = ['Admin: carrier connections'];
/** Reading needs settings.carriers or pos.shipping.read; a change needs settings.carriers. */
const readProblems = problemResponses(ADMIN_READ_PROBLEMS, 'insufficient-permission');
/** Connecting names a warehouse (a reference), disconnecting a connection. */
const changeProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found');
/** …and a shop holds at most SHOP_CAPS.carrierConnections of them (domain/kernel/shop-caps.ts), which also bounds the list. */
const connectProblems = problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found', 'limit-reached');

/** Shop set-up of the admin web app: the shop's carrier connections (credentials go in, never out). */
export const adminCarrierConnectionRoutes: FastifyPluginAsyncZod<AdminCarrierConnectionDeps> = async (app, deps) => {
  const manage = (request: FastifyRequest) => assertHolds(request.admin.permissions, ['settings.carriers'], 'setting up carriers');
  const view = (request: FastifyRequest) => {
    if (!request.admin.permissions.includes('pos.shipping.read')) manage(request);
  };

  app.get(
    '/carrier-connections',
    { schema: { tags, response: { 200: z.object({ data: z.array(carrierConnectionSchema) }), ...readProblems } } },
    async (request) => {
      view(request);
      return { data: await request.inShop(listCarrierConnections) };
    },
  );

  app.post(
    '/carrier-connections',
    {
      schema: {
        tags,
        summary: 'Connect a carrier: its credentials are sealed, and the callback URL to register at the carrier is shown once',
        body: connectCarrierInputSchema,
        response: {
          201: z.object({
            connection: carrierConnectionSchema,
            callbackUrl: z.string().describe('Shown once: register it at the carrier as the webhook (callback) URL'),
          }),
          ...connectProblems,
        },
      },
    },
    async (request, reply) => {
      manage(request);
      const created = await request.inShop((tx) => connectCarrierWithCallbackUrl(tx, request.admin.shopId, request.body, deps));
      return reply.status(201).send(created);
    },
  );

  app.delete(
    '/carrier-connections/:id',
    {
      schema: {
        tags,
        summary: 'Disconnect: deleted when no shipment names it, otherwise switched off (its shipments are still tracked)',
        params: IdParams,
        response: { 200: z.object({ id: z.uuid(), result: z.enum(['deleted', 'switched-off']) }), ...changeProblems },
      },
    },
    async (request) => {
      manage(request);
      return { id: request.params.id, result: await request.inShop((tx) => disconnectCarrier(tx, request.params.id)) };
    },
  );
};
