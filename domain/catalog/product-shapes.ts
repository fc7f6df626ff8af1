import { z } from 'zod';
import { Amount, Decimal, Dimension, Name, NOT_BLANK, Note, Timestamp, Weight } from '../kernel/index.js';
import { MAX_CODE_LENGTH, MAX_KEYWORD_LENGTH, MAX_KEYWORDS, MAX_VARIANTS } from './product-rules.js';

/**
 * The wire shapes of products: the API answers and accepts exactly these, and the catalog's
 * types are inferred from them (one source for each shape).
 */
export const ProductType = z.enum(['simple', 'service']);

export const ProductRow = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    type: ProductType,
    isActive: z.boolean(),
    categoryNames: z.array(z.string()),
    variantCount: z.number().int(),
    imageUrl: z.string().nullable(),
    priceFrom: Decimal.nullable(),
    priceTo: Decimal.nullable(),
    updatedAt: Timestamp,
    deletedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ProductRow' });

export const Variant = z
  .object({
    id: z.uuid(),
    code: z.string(),
    barcode: z.string().nullable(),
    price: Decimal,
    weightGrams: Decimal.nullable(),
    lengthCm: Decimal.nullable(),
    widthCm: Decimal.nullable(),
    heightCm: Decimal.nullable(),
    isActive: z.boolean(),
    attributes: z.record(z.string(), z.string()).describe("Attribute name → value, in the product's attribute order"),
    keywords: z.array(z.string()).describe('Order-closing keywords'),
  })
  .meta({ id: 'Variant' });

export const ProductDetail = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    description: z.string().nullable(),
    type: ProductType,
    isActive: z.boolean(),
    categoryIds: z.array(z.uuid()),
    variants: z.array(Variant),
    images: z.array(z.object({ id: z.uuid(), url: z.string(), kind: z.enum(['image', 'video']), variantIds: z.array(z.uuid()) })),
    createdAt: Timestamp,
    deletedAt: Timestamp.nullable(),
  })
  .meta({ id: 'Product' });

export const VariantInput = z.strictObject({
  id: z
    .union([z.uuid(), z.literal('')])
    .nullable()
    .optional()
    .describe(
      'PATCH: the variant to edit. POST: the new variant\'s id, a UUID no variant has (409 conflict otherwise). Empty (absent, null or "") adds a variant with an id made for it',
    ),
  code: z.string().max(MAX_CODE_LENGTH).optional(),
  barcode: z.string().max(100).nullable().optional(),
  price: Amount.optional(),
  weightGrams: Weight.nullable().optional(),
  lengthCm: Dimension.nullable().optional(),
  widthCm: Dimension.nullable().optional(),
  heightCm: Dimension.nullable().optional(),
  isActive: z.boolean().optional(),
  attributes: z.record(z.string().trim().min(1).max(100).meta(NOT_BLANK), z.string().max(255).regex(/\S/, 'must not be blank')).optional(),
  keywords: z
    .array(
      z
        .string()
        .max(MAX_KEYWORD_LENGTH)
        .regex(/^[^\r\n]*\S[^\r\n]*$/, `1 to ${MAX_KEYWORD_LENGTH} characters, single line`),
    )
    .max(MAX_KEYWORDS)
    .optional()
    .describe('Absent keeps the set, an array replaces it, [] clears it'),
});

export const NewProduct = z.strictObject({
  code: z.string().max(MAX_CODE_LENGTH).optional().describe('Generated when empty'),
  name: Name,
  description: Note.nullable().optional(),
  categoryIds: z.array(z.uuid()).max(50).optional(),
  type: ProductType.optional(),
  variants: z.array(VariantInput).min(1).max(MAX_VARIANTS).describe(`At most ${MAX_VARIANTS} variants per product`),
});

export const ProductChanges = z.strictObject({
  name: Name.optional(),
  description: Note.nullable().optional(),
  categoryIds: z.array(z.uuid()).max(50).optional().describe('Replaces every category'),
  variants: z
    .array(VariantInput)
    .max(MAX_VARIANTS)
    .optional()
    .describe(`Patched partly: with id edits that variant, without id appends one; the product keeps at most ${MAX_VARIANTS} variants`),
});

export type ProductRow = z.infer<typeof ProductRow>;
export type Variant = z.infer<typeof Variant>;
export type ProductDetail = z.infer<typeof ProductDetail>;
export type VariantInput = z.infer<typeof VariantInput>;
export type NewProduct = z.infer<typeof NewProduct>;
export type ProductChanges = z.infer<typeof ProductChanges>;
