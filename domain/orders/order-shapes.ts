import { z } from 'zod';
import {
  AddressInput,
  AddressSchema,
  Amount,
  Decimal,
  Name,
  NOT_BLANK,
  Note,
  PhoneOrEmpty,
  PositiveAmount,
  Timestamp,
  TimestampInput,
} from '../kernel/index.js';
import { ORDER_STATUSES } from './order-status.js';

/**
 * The wire shapes of orders: the API answers with exactly these and accepts exactly its inputs, the order events carry them, and
 * the orders module's types are inferred from them (one source for each shape).
 */
export const OrderStatusSchema = z.enum(ORDER_STATUSES);

export const OrderRow = z
  .object({
    id: z.uuid(),
    code: z.string(),
    status: OrderStatusSchema,
    warehouseId: z.uuid(),
    warehouseName: z.string().nullable(),
    customerId: z.uuid().nullable(),
    salesChannelId: z.uuid().nullable(),
    salesChannelName: z.string().nullable(),
    receivedAtShop: z.boolean(),
    handlerUserId: z.uuid().nullable(),
    handlerName: z.string().nullable(),
    billFullName: z.string().nullable(),
    billPhone: z.string().nullable(),
    billEmail: z.string().nullable(),
    totalPrice: Decimal,
    discount: Decimal,
    shippingFee: Decimal,
    freeShipping: z.boolean(),
    surcharge: Decimal,
    tax: Decimal,
    totalAmount: Decimal,
    returnedAmount: Decimal,
    paidAmount: Decimal,
    occurredAt: Timestamp,
    note: z.string().nullable(),
    tags: z.array(z.object({ id: z.uuid(), name: z.string() })),
    createdAt: Timestamp,
    updatedAt: Timestamp,
    deletedAt: Timestamp.nullable(),
  })
  .meta({ id: 'OrderRow' });

export const OrderLine = z
  .object({
    id: z.uuid(),
    variantId: z.uuid(),
    productId: z.uuid().nullable(),
    variantCode: z.string().nullable().optional().describe('Absent when the key lacks pos.products.read'),
    variantName: z.string().nullable().optional().describe('Absent when the key lacks pos.products.read'),
    productName: z.string().nullable().optional().describe('Absent when the key lacks pos.products.read'),
    quantity: Decimal,
    unitPrice: Decimal,
    discount: Decimal,
    lineTotal: Decimal,
    returnedQuantity: Decimal,
  })
  .meta({ id: 'OrderLine' });

export const OrderDetail = OrderRow.extend({
  shippingAddress: AddressSchema.nullable(),
  creditApplied: Decimal,
  exchangeReturn: z.boolean(),
  lines: z.array(OrderLine),
  payments: z.array(z.object({ methodId: z.uuid(), methodName: z.string(), amount: Decimal })),
}).meta({ id: 'Order' });

export const OrderNote = z
  .object({
    id: z.uuid(),
    message: z.string(),
    createdByName: z.string().nullable(),
    createdByIsIntegration: z.boolean(),
    createdAt: Timestamp,
    updatedAt: Timestamp,
  })
  .meta({ id: 'OrderNote' });

export const OrderLineInput = z.strictObject({
  variantId: z.uuid(),
  quantity: PositiveAmount,
  unitPrice: Amount,
  discount: Amount.optional(),
});

const orderFields = {
  code: z.string().trim().min(1).max(100).meta(NOT_BLANK).optional().describe('Generated (DH000001…) when absent'),
  warehouseId: z.uuid(),
  customerId: z.uuid().nullish(),
  salesChannelId: z.uuid().nullish(),
  receivedAtShop: z.boolean().optional(),
  billFullName: Name.nullish(),
  billPhone: PhoneOrEmpty.nullish(),
  billEmail: z.string().trim().max(255).nullish(),
  shippingAddress: AddressInput.nullish(),
  lines: z.array(OrderLineInput).min(1).max(200),
  discount: Amount.optional(),
  shippingFee: Amount.optional(),
  surcharge: Amount.optional(),
  tax: Amount.optional(),
  freeShipping: z.boolean().optional(),
  payments: z
    .array(z.strictObject({ methodId: z.uuid(), amount: PositiveAmount }))
    .max(50)
    .optional(),
  occurredAt: TimestampInput.optional(),
  note: Note.nullish(),
  tagIds: z.array(z.uuid()).max(50).optional(),
  handlerUserId: z.uuid().nullish(),
  handlerRoleId: z.uuid().nullish(),
};

/** Both at once is 400 (spec, Orders, rule 2): the document says so. */
const oneHandlerChoice = {
  not: {
    required: ['handlerUserId', 'handlerRoleId'],
    properties: { handlerUserId: { type: 'string' }, handlerRoleId: { type: 'string' } },
  },
};

export const NewOrder = z.strictObject(orderFields).meta(oneHandlerChoice);

export const OrderChanges = z
  .strictObject({
    ...orderFields,
    code: z.never().optional().describe('The code cannot change'),
    warehouseId: orderFields.warehouseId.optional(),
    lines: orderFields.lines.optional(),
    handlerUserId: z.uuid().optional().describe('Needs pos.orders.assign'),
    handlerRoleId: z.uuid().optional().describe('Needs pos.orders.assign; the next member of the role in turn'),
  })
  .meta(oneHandlerChoice);

export type OrderRow = z.infer<typeof OrderRow>;
export type OrderLine = z.infer<typeof OrderLine>;
export type OrderDetail = z.infer<typeof OrderDetail>;
export type OrderNote = z.infer<typeof OrderNote>;
export type OrderLineInput = z.infer<typeof OrderLineInput>;
export type NewOrder = z.infer<typeof NewOrder>;
export type OrderChanges = z.infer<typeof OrderChanges>;
