import { z } from 'zod';

/** An address as carriers take it: names, not ids (carrier A's adapter finds its own ids from the names). */
export const carrierAddressSchema = z.object({
  name: z.string().trim().min(1).max(255),
  phone: z.string().trim().min(1).max(32),
  street: z.string().trim().min(1).max(500),
  ward: z.string().trim().min(1).max(255).nullable(),
  district: z.string().trim().min(1).max(255),
  province: z.string().trim().min(1).max(255),
});
export type CarrierAddress = z.infer<typeof carrierAddressSchema>;
