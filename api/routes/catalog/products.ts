import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  MAX_KEYWORD_LENGTH,
  MAX_KEYWORDS,
  MAX_VARIANTS,
  updateProduct,
} from '../../../domain/catalog/index.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { Amount, Dimension, IdParams, Name, NOT_BLANK, Note, Timestamp, Weight } from '../../schemas/common.js';
import { pageOf, softDeleteListQuery } from '../../schemas/list-query.js';
import { LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

const ProductType = z.enum(['simple', 'service']);

const ProductRow = z
  .object({
    id: z.uuid(),
    code: z.string(),
    name: z.string(),
    type: ProductType,
    isActive: z.boolean(),
    categoryNames: z.array(z.string()),
    variantCount: z.number().int(),
    imageUrl: z.string().nullable(),
    priceFrom: z.string().nullable(),
    priceTo: z.string().nullable(),
    updatedAt: Timestamp,
    deletedAt: Timestamp.nullable(),
  })
  .meta({ id: 'ProductRow' });

const Variant = z
  .object({
    id: z.uuid(),
    code: z.string(),
    barcode: z.string().nullable(),
    price: z.string(),
    weightGrams: z.string().nullable(),
    lengthCm: z.string().nullable(),
    widthCm: z.string().nullable(),
    heightCm: z.string().nullable(),
    isActive: z.boolean(),
    attributes: z.record(z.string(), z.string()).describe("Attribute name → value, in the product's attribute order"),
    keywords: z.array(z.string()).describe('Order-closing keywords'),
  })
  .meta({ id: 'Variant' });

const ProductDetail = z
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

const VariantInput = z.strictObject({
  id: z.uuid().optional().describe('The variant to edit; absent adds a variant'),
  code: z.string().max(100).optional(),
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

const NewProduct = z.strictObject({
  code: z.string().max(100).optional().describe('Generated when empty'),
  name: Name,
  description: Note.nullable().optional(),
  categoryIds: z.array(z.uuid()).max(50).optional(),
  type: ProductType.optional(),
  variants: z
    .array(VariantInput.omit({ id: true }))
    .min(1)
    .max(MAX_VARIANTS)
    .describe(`At most ${MAX_VARIANTS} variants per product`),
});

const ProductChanges = z.strictObject({
  name: Name.optional(),
  description: Note.nullable().optional(),
  categoryIds: z.array(z.uuid()).max(50).optional().describe('Replaces every category'),
  variants: z
    .array(VariantInput)
    .max(MAX_VARIANTS)
    .optional()
    .describe(`Patched partly: with id edits that variant, without id appends one; the product keeps at most ${MAX_VARIANTS} variants`),
});

/** Codes, variant combinations and keywords a write may clash on (spec, POST /products). */
const catalogClashes = ['duplicate-code', 'variant-combo-duplicate', 'variant-keyword-taken', 'match-key-taken', 'conflict'] as const;

const tags = ['Products'];

/** Products: a thin HTTP shape over domain/products. */
export const productRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const writer = (auth: { shop: { id: string }; permissions: string[] }) => ({ shopId: auth.shop.id, permissions: auth.permissions });

  app.get(
    '/products',
    {
      config: { permissions: ['pos.products.read'] },
      schema: {
        tags,
        summary: 'List products, sorted by (updatedAt, id)',
        querystring: softDeleteListQuery.extend({
          search: z.string().min(1).max(255).optional().describe('Part of the name or the code'),
          categoryId: z.uuid().optional(),
        }),
        response: { 200: pageOf(ProductRow), ...problemResponses(LIST_PROBLEMS) },
      },
    },
    (request) =>
      request.inShop((tx) =>
        listProducts(tx, request.query, cursorBinding(deps, request, 'products'), request.auth.shop.recomputeCeilingSeconds),
      ),
  );

  app.get(
    '/products/:id',
    {
      config: { permissions: ['pos.products.read'] },
      schema: { tags, params: IdParams, response: { 200: ProductDetail, ...problemResponses(READ_PROBLEMS, 'not-found') } },
    },
    (request) => request.inShop((tx) => getProduct(tx, request.params.id)),
  );

  app.post(
    '/products',
    {
      config: { permissions: ['pos.products.create', 'pos.products.read'] },
      schema: {
        tags,
        summary: 'Create a product with its variants',
        body: NewProduct,
        response: { 201: ProductDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found', catalogClashes) },
      },
    },
    async (request, reply) => {
      const product = await request.inShop((tx) => createProduct(tx, writer(request.auth), request.body));
      return reply.status(201).send(product);
    },
  );

  app.patch(
    '/products/:id',
    {
      config: { permissions: ['pos.products.update', 'pos.products.read'] },
      schema: {
        tags,
        summary: 'Change a product; variants are patched partly',
        params: IdParams,
        body: ProductChanges,
        response: { 200: ProductDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found', catalogClashes, 'variant-removed') },
      },
    },
    (request) => request.inShop((tx) => updateProduct(tx, writer(request.auth), request.params.id, request.body)),
  );

  app.delete(
    '/products/:id',
    {
      config: { permissions: ['pos.products.delete'] },
      schema: {
        tags,
        summary: 'Soft-delete a product',
        params: IdParams,
        response: { 200: ProductDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => deleteProduct(tx, request.auth.shop.id, request.params.id)),
  );
};
