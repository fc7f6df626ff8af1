import { z } from 'zod';

/** What carrier B's simulator reads from a request: GHTK's bodies, as far as it checks them. */

const phone = z.string().regex(/^(0|\+?84)\d{9}$/, 'a Vietnamese phone number (0xxxxxxxxx)');
const text = z.string().trim().min(1);

export const productBody = z.object({
  name: text,
  /** Kilograms, or grams with `order.weight_option: "gram"`. */
  weight: z.number().positive(),
  quantity: z.number().int().min(1).default(1),
  product_code: z.union([z.string(), z.number()]).optional(),
  price: z.number().min(0).optional(),
});
export type CarrierBProduct = z.infer<typeof productBody>;

/** `POST /services/shipment/order/?ver=1.5`, the fields the simulator reads. */
export const createOrderBody = z
  .object({
    products: z.array(productBody).min(1),
    order: z.object({
      id: z.union([text, z.number().int()]).transform(String),
      pick_name: text,
      pick_address: text,
      pick_province: text,
      pick_district: text,
      pick_ward: z.string().optional(),
      pick_tel: phone,
      name: text,
      tel: phone,
      address: text,
      province: text,
      /** Absent for an address of the 2025 layout (province, ward): the ward is then required. */
      district: text.optional(),
      ward: z.string().trim().min(1).optional(),
      /** Village or street group; GHTK wants "Khác" when there is none. */
      hamlet: text,
      pick_money: z.number().int().min(0).max(20_000_000),
      value: z.number().int().min(0).max(20_000_000),
      note: z.string().max(120).optional(),
      is_freeship: z
        .union([z.literal('0'), z.literal('1'), z.literal(0), z.literal(1)])
        .default(0)
        .transform(Number),
      transport: z.enum(['road', 'fly']).optional(),
      pick_option: z.enum(['cod', 'post']).optional(),
      deliver_option: z.enum(['xteam', 'none']).optional(),
      weight_option: z.enum(['kilogram', 'gram']).default('kilogram'),
      total_weight: z.number().positive().optional(),
    }),
  })
  .superRefine(({ order }, context) => {
    if (order.district === undefined && order.ward === undefined)
      context.addIssue({
        code: 'custom',
        path: ['order', 'ward'],
        message: 'is required without order.district (the address since 1 July 2025)',
      });
  });
export type CreateOrderBody = z.infer<typeof createOrderBody>;
