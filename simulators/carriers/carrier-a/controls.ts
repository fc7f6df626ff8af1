import { z } from 'zod';
import { carrierAStatuses } from './statuses.js';

/** `POST /_control/shops`: omitted credentials are made up and returned. */
export const carrierAShopControl = z.object({
  shopId: z.number().int().min(1).optional(),
  token: z.string().min(1).optional(),
  /** The GHN district it picks up from (fees and lead times are lower within its province). */
  districtId: z.number().int().optional(),
  /** The partner's callback URL with its secret in it, e.g. `https://shop.example/callbacks/carrier-a/<secret>`. */
  callbackUrl: z.url().nullable().optional(),
});

/** `POST /_control/orders/{order_code}/advance`: `status` (a GHN status string) or the usual next step. */
export const carrierAAdvanceControl = z
  .object({ status: z.enum(carrierAStatuses).optional(), reason: z.string().optional(), reasonCode: z.string().optional() })
  .transform(({ status, ...details }) => ({ to: status, ...details }));
