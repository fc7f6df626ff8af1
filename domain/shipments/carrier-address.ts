import { z } from 'zod';

const unitName = z.string().trim().min(1).max(255);

/** An address as carriers take it: names, not ids (carrier A's adapter finds its own ids from the names). */
export const carrierAddressSchema = z.object({
  name: z.string().trim().min(1).max(255),
  phone: z.string().trim().min(1).max(32),
  street: z.string().trim().min(1).max(500),
  ward: unitName.nullable(),
  district: unitName,
  province: unitName,
});
export type CarrierAddress = z.infer<typeof carrierAddressSchema>;

/**
 * Whom a parcel goes to: the names in the layout they follow. `old` is province, district, ward
 * (before 1 July 2025); `new` is province and ward, no district, which carriers take in a mode of
 * their own (the decision on the new-system mapping per carrier). Absent, as in a push started
 * before it existed: the old layout.
 */
export const carrierRecipientSchema = carrierAddressSchema
  .extend({ system: z.enum(['old', 'new']).optional(), district: unitName.nullable() })
  .refine((address) => (address.system === 'new' ? address.ward !== null : address.district !== null), {
    message: 'the old layout needs a district, the new one a ward',
  });
export type CarrierRecipient = z.infer<typeof carrierRecipientSchema>;
