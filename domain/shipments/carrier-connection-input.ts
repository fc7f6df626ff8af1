import { z } from 'zod';
import { carrierAddressSchema } from './carrier-address.js';

/** The carriers Shopflow speaks to (spec: `carrier_a`, `carrier_b`). */
export const carriers = ['carrier_a', 'carrier_b'] as const;
export const carrierSchema = z.enum(carriers);
export type Carrier = z.infer<typeof carrierSchema>;

/** A row of `GET /carrier-connections` and of the admin list: never credentials. */
export const carrierConnectionSchema = z
  .object({ id: z.uuid(), carrier: carrierSchema, name: z.string(), active: z.boolean() })
  .meta({ id: 'CarrierConnection' });
export type CarrierConnection = z.infer<typeof carrierConnectionSchema>;

/** GHN-style: the account's `Token` and the `ShopId` of the carrier shop that picks up. */
export const carrierACredentialsSchema = z.object({ token: z.string().trim().min(1).max(255), shopId: z.number().int().positive() });
export type CarrierACredentials = z.infer<typeof carrierACredentialsSchema>;

/** GHTK-style: the `Token` and the `X-Client-Source` partner code issued with it. */
export const carrierBCredentialsSchema = z.object({
  token: z.string().trim().min(1).max(255),
  clientSource: z.string().trim().min(1).max(64),
});
export type CarrierBCredentials = z.infer<typeof carrierBCredentialsSchema>;

const connectionFields = {
  name: z.string().trim().min(1).max(255),
  /** The warehouse the carrier picks up from. */
  warehouseId: z.uuid(),
  /** Where the carrier's API is: the simulator's address in development, the carrier's own in production. */
  baseUrl: z.url({ protocol: /^https?$/ }).max(2_000),
  /** The pick-up address as the carrier account registers it: the sender of every parcel. */
  pickUp: carrierAddressSchema,
};

/** What a shop sends to connect a carrier; the credentials' shape depends on the carrier. */
export const connectCarrierInputSchema = z.discriminatedUnion('carrier', [
  z.object({ carrier: z.literal('carrier_a'), credentials: carrierACredentialsSchema, ...connectionFields }),
  z.object({ carrier: z.literal('carrier_b'), credentials: carrierBCredentialsSchema, ...connectionFields }),
]);
export type ConnectCarrierInput = z.infer<typeof connectCarrierInputSchema>;

/** What is encrypted in `encrypted_credentials`: the credentials and the secret of our callback URL. */
export const connectionSecretsSchema = z.object({
  /** Read back with the carrier's own credentials schema. */
  credentials: z.unknown(),
  callbackSecret: z.string().min(1),
});
