import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { assertHolds } from '../../../domain/access/index.js';
import { ProductDetail, ProductImagesInput, setProductImages } from '../../../domain/catalog/index.js';
import { IdParams } from '../../../domain/kernel/index.js';
import { ADMIN_WRITE_PROBLEMS, problemResponses } from '../../schemas/problem.js';

/**
 * The product edit that belongs to the shop's staff, not to API keys (the Open API has no image
 * path): a product's images. Needs pos.products.update and, as the answer is the product,
 * pos.products.read (as `PATCH /products/{id}`); emits `product.updated` with `images`.
 */
export const adminProductRoutes: FastifyPluginAsyncZod = async (app) => {
  app.put(
    '/products/:id/images',
    {
      schema: {
        tags: ['Admin: products'],
        summary: "Set the product's images, in order (product.updated with images)",
        params: IdParams,
        body: ProductImagesInput,
        response: { 200: ProductDetail, ...problemResponses(ADMIN_WRITE_PROBLEMS, 'insufficient-permission', 'not-found') },
      },
    },
    (request) => {
      assertHolds(request.admin.permissions, ['pos.products.update', 'pos.products.read'], "changing a product's images");
      return request.inShop((tx) => setProductImages(tx, request.admin.shopId, request.params.id, request.body.images));
    },
  );
};
