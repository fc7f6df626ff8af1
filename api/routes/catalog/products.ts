import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import {
  createProduct,
  deleteProduct,
  getProduct,
  listProducts,
  MAX_VARIANTS,
  NewProduct,
  ProductChanges,
  ProductDetail,
  ProductRow,
  updateProduct,
} from '../../../domain/catalog/index.js';
import { cursorBinding, type RouteDeps } from '../../route-deps.js';
import { IdParams } from '../../../domain/kernel/index.js';
import { pageOf, softDeleteListQuery } from '../../schemas/list-query.js';
import { LIST_PROBLEMS, READ_PROBLEMS, WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

/** Codes, variant combinations and keywords a write may clash on (spec, POST /products). */
const catalogClashes = ['duplicate-code', 'variant-combo-duplicate', 'variant-keyword-taken', 'match-key-taken', 'conflict'] as const;

const tags = ['Products'];

/**
 * Product writes carry up to MAX_VARIANTS variants: 2 KiB each (a variant with ten keywords and three
 * attributes is about 600 bytes of JSON) instead of the API's 1 MiB; past it, 413 `payload-too-large`.
 */
export const PRODUCT_BODY_LIMIT_BYTES = MAX_VARIANTS * 2 * 1024;

/** Products: a thin HTTP shape over domain/products. */
export const productRoutes: FastifyPluginAsyncZod<RouteDeps> = async (app, deps) => {
  const writer = (auth: { shop: { id: string }; permissions: string[] }) => ({ shopId: auth.shop.id, permissions: auth.permissions });

  app.get(
    '/products',
    {
      config: { permissions: ['pos.products.read'] },
      schema: {
        operationId: 'listProducts',
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
      schema: {
        operationId: 'getProduct',
        summary: 'A product with its variants and images',
        tags,
        params: IdParams,
        response: { 200: ProductDetail, ...problemResponses(READ_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => getProduct(tx, request.params.id)),
  );

  app.post(
    '/products',
    {
      config: { permissions: ['pos.products.create', 'pos.products.read'] },
      bodyLimit: PRODUCT_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'createProduct',
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
      bodyLimit: PRODUCT_BODY_LIMIT_BYTES,
      schema: {
        operationId: 'updateProduct',
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
        operationId: 'deleteProduct',
        tags,
        summary: 'Soft-delete a product',
        params: IdParams,
        response: { 200: ProductDetail, ...problemResponses(WRITE_PROBLEMS, 'not-found') },
      },
    },
    (request) => request.inShop((tx) => deleteProduct(tx, request.auth.shop.id, request.params.id)),
  );
};
