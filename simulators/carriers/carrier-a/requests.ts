import { z } from 'zod';

/** What carrier A's simulator reads from a request: GHN's bodies, as far as it checks them. */

/** GHN's phone rule: a Vietnamese number, `0…` or `84…`. */
const phone = z.string().regex(/^(0|\+?84)\d{9}$/, 'a Vietnamese phone number (0xxxxxxxxx)');

/** `POST /shiip/public-api/v2/shipping-order/create`, the fields the simulator reads. */
export const createOrderBody = z
  .object({
    payment_type_id: z.union([z.literal(1), z.literal(2)]),
    note: z.string().max(5_000).optional(),
    required_note: z.enum(['CHOTHUHANG', 'CHOXEMHANGKHONGTHU', 'KHONGCHOXEMHANG']),
    client_order_code: z.string().min(1).max(50).optional(),
    from_name: z.string().optional(),
    from_phone: phone.optional(),
    from_address: z.string().optional(),
    to_name: z.string().min(1).max(1_024),
    to_phone: phone,
    to_address: z.string().min(1).max(1_024),
    /** The old layout: GHN's district id and ward code (master data v1). */
    to_ward_code: z.string().min(1).optional(),
    to_district_id: z.number().int().optional(),
    /** The layout since 1 July 2025: province and ward by their names in the v3 master data, no district. */
    is_new_to_address: z.boolean().default(false),
    to_province_name: z.string().trim().min(1).optional(),
    to_ward_name: z.string().trim().min(1).optional(),
    cod_amount: z.number().int().min(0).max(50_000_000).default(0),
    content: z.string().max(2_000).optional(),
    weight: z.number().int().min(1),
    length: z.number().int().min(1).max(200).optional(),
    width: z.number().int().min(1).max(200).optional(),
    height: z.number().int().min(1).max(200).optional(),
    insurance_value: z.number().int().min(0).max(5_000_000).default(0),
    service_type_id: z.union([z.literal(2), z.literal(5)]).default(2),
    items: z
      .array(
        z.object({
          name: z.string().min(1),
          code: z.string().optional(),
          quantity: z.number().int().min(1),
          price: z.number().int().min(0).optional(),
          weight: z.number().int().min(0).optional(),
        }),
      )
      .default([]),
  })
  .superRefine((body, context) => {
    const needed = body.is_new_to_address ? (['to_province_name', 'to_ward_name'] as const) : (['to_district_id', 'to_ward_code'] as const);
    for (const field of needed.filter((name) => body[name] === undefined)) {
      const layout = body.is_new_to_address ? 'with is_new_to_address' : 'without is_new_to_address (the old address)';
      context.addIssue({ code: 'custom', path: [field], message: `is required ${layout}` });
    }
  });
export type CreateOrderBody = z.infer<typeof createOrderBody>;

export const orderCodeBody = z.object({ order_code: z.string().min(1) });
export const clientOrderCodeBody = z.object({ client_order_code: z.string().min(1) });
export const cancelBody = z.object({ order_codes: z.array(z.string().min(1)).min(1) });
