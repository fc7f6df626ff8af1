import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Sql } from '../../../db/client.js';
import { Problem, withShop } from '../../../domain/kernel/index.js';
import { connectionOfCallback, shipmentOfCallback, type CarrierMilestone } from '../../../domain/shipments/index.js';
import { InvalidCarrierCallback } from '../../../adapters/carriers/carrier-adapter.js';
import { parseCarrierCallback } from '../../../adapters/carriers/carrier-adapters.js';
import { signalMilestone, type ShipmentStarter } from '../../../workflows/shipments/shipment-starter.js';
import { platformThrottlePlugin, type PlatformThrottleOptions } from '../../plugins/platform-throttle.js';

/** Where carriers call back: the URL registered at the carrier carries the connection's secret. */
export const CARRIER_CALLBACK_PATH = '/platform/carriers/callbacks/:secret';

/**
 * Carrier status callbacks: public (the carrier has no key), authenticated by the secret in the URL
 * (only its hash is stored: docs/decisions/0130-the-callback-secret-is-encrypted-and-found-by-its-hash.md).
 * 200 once the milestone is signalled to the shipment's tracking workflow (or when it names no
 * shipment of ours); 404 for an unknown secret; 400 for a body not in the carrier's shape; 503 when
 * the signal cannot be recorded, so the carrier calls again. Throttled per client address with the
 * other `/platform/*` routes.
 */
export const carrierCallbackRoutes: FastifyPluginAsyncZod<{
  sql: Sql;
  shipments: ShipmentStarter;
  throttle?: Pick<PlatformThrottleOptions, 'perMinute'>;
}> = async (app, deps) => {
  await app.register(platformThrottlePlugin, { sql: deps.sql, ...deps.throttle });
  app.post(
    CARRIER_CALLBACK_PATH,
    {
      config: { public: true },
      schema: { hide: true, params: z.object({ secret: z.string().min(20).max(100) }) },
    },
    async (request) => {
      const connection = await connectionOfCallback(deps.sql, request.params.secret);
      if (!connection) throw new Problem('not-found', 'no carrier connection has this callback URL');
      let milestone: CarrierMilestone;
      try {
        milestone = parseCarrierCallback(connection.carrier, request.body);
      } catch (error) {
        if (error instanceof InvalidCarrierCallback) throw new Problem('validation-failed', error.message);
        throw error;
      }
      const shipment = await withShop(deps.sql, connection.shopId, (tx) => shipmentOfCallback(tx, connection.connectionId, milestone));
      if (!shipment) return { received: true, tracked: false };
      try {
        await signalMilestone(
          deps.shipments,
          {
            shopId: connection.shopId,
            shipmentId: shipment.id,
            orderId: shipment.orderId,
            orderCode: shipment.orderCode,
            trackingCode: milestone.trackingCode,
            carrier: connection.carrier,
          },
          milestone,
        );
      } catch (error) {
        request.log.error({ err: error, shipmentId: shipment.id }, 'carrier callback not signalled');
        throw new Problem('callback-not-recorded', 'the callback could not be recorded; call again');
      }
      return { received: true, tracked: true };
    },
  );
};
