import { z } from 'zod';

export const Timestamp = z.string().describe('ISO 8601 UTC');
export const DecimalString = z.string().regex(/^-?\d+(\.\d+)?$/, 'must be a decimal string such as "120000" or "1.5"');
export const IdParams = z.object({ id: z.uuid() });

/** Names 255 characters, notes and messages 5,000 (DESIGN.md, limits). */
export const Name = z.string().trim().min(1).max(255);
export const Note = z.string().max(5000);

export const AddressSchema = z
  .object({
    recipientName: z.string().nullable(),
    recipientPhone: z.string().nullable(),
    addressLine: z.string().nullable(),
    geoSystem: z.enum(['old', 'new']).nullable(),
    provinceUnitId: z.uuid().nullable(),
    districtUnitId: z.uuid().nullable(),
    wardUnitId: z.uuid().nullable(),
    provinceName: z.string().nullable(),
    districtName: z.string().nullable(),
    wardName: z.string().nullable(),
  })
  .meta({ id: 'Address' });

/** Address fields as sent (an order's shipping address): all optional, unit ids from `GET /geo/units`. */
export const AddressInput = z.strictObject({
  recipientName: z.string().max(255).nullish(),
  recipientPhone: z.string().max(40).nullish(),
  addressLine: z.string().max(500).nullish(),
  geoSystem: z.enum(['old', 'new']).nullish(),
  provinceUnitId: z.uuid().nullish(),
  districtUnitId: z.uuid().nullish(),
  wardUnitId: z.uuid().nullish(),
  provinceName: z.string().max(255).nullish(),
  districtName: z.string().max(255).nullish(),
  wardName: z.string().max(255).nullish(),
});

/** A customer's delivery address needs its address line. */
export const CustomerAddressInput = AddressInput.extend({ addressLine: z.string().trim().min(1).max(500) });
