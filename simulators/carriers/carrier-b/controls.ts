import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { parseControl } from '../shared/control-routes.js';
import type { CarrierBStore } from './store.js';
import { carrierBStatusIds, type CarrierBStatusId } from './statuses.js';

/** `POST /_control/shops`: omitted credentials are made up and returned. */
export const carrierBShopControl = z.object({
  token: z.string().min(1).optional(),
  clientSource: z.string().min(1).optional(),
  /** The partner's callback URL with its secret in it, e.g. `https://shop.example/callbacks/carrier-b?secret=<secret>`. */
  callbackUrl: z.url().nullable().optional(),
});

const statusId = z
  .number()
  .int()
  .refine((id) => carrierBStatusIds.includes(id as CarrierBStatusId), 'a GHTK status id')
  .transform((id) => id as CarrierBStatusId);

/** `POST /_control/orders/{label}/advance`: `statusId` (a GHTK status id) or the usual next step. */
export const carrierBAdvanceControl = z
  .object({ statusId: statusId.optional(), reason: z.string().optional(), reasonCode: z.string().optional() })
  .transform(({ statusId: to, ...details }) => ({ to, ...details }));

const partialDeliveryControl = z.object({
  collectedMoney: z.number().int().min(0).optional(),
  returnedProducts: z
    .array(z.object({ name: z.string().min(1), quantity: z.number().int().min(1) }))
    .min(1)
    .optional(),
});
export type PartialDeliveryRequest = z.infer<typeof partialDeliveryControl>;

/** `POST /_control/orders/{label}/partial-delivery`. */
export function registerPartialDeliveryControl(control: FastifyInstance, store: CarrierBStore): void {
  control.post('/orders/:label/partial-delivery', async (request) => {
    const { label } = parseControl(z.object({ label: z.string() }), request.params);
    return store.partialDelivery(label, parseControl(partialDeliveryControl, request.body));
  });
}
