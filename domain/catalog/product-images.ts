import { z } from 'zod';
import { Problem, refuseAbsent, type Tx } from '../kernel/index.js';
import { recordUpdate } from '../events/index.js';
import { getProduct } from './products.js';
import { assertDeliverableSize, MAX_VARIANTS } from './product-rules.js';
import { ProductDetail } from './product-shapes.js';

/** Ours: images and videos a product shows (Shopify allows 250 media; a shop's product page shows far fewer). */
const MAX_IMAGES = 50;

const ImageKind = ProductDetail.shape.images.element.shape.kind;

/**
 * A product's images as the shop's staff set them (the admin API and CLI; the Open API changes
 * none): the whole list, in order. An image is told by its URL: one the product already shows keeps
 * its id, and its kind and variants unless sent.
 */
export const ProductImagesInput = z.strictObject({
  images: z
    .array(
      z.strictObject({
        url: z
          .url({ protocol: /^https?$/ })
          .max(2048)
          .describe('Absolute http(s) URL of the file; Shopflow never fetches it'),
        kind: ImageKind.optional().describe("Absent keeps a kept image's kind; a new one is an image"),
        variantIds: z
          .array(z.uuid())
          .max(MAX_VARIANTS)
          .optional()
          .describe("Variants of this product it shows; [] is a shared file. Absent keeps a kept image's, a new one is shared"),
      }),
    )
    .max(MAX_IMAGES)
    .describe(`Replaces every image, in this order; at most ${MAX_IMAGES}`),
});
export type ProductImagesInput = z.infer<typeof ProductImagesInput>;

/**
 * Sets the product's images (ProductImagesInput). A change raises the product's `updatedAt` (spec,
 * synchronisation rule 3) and emits `product.updated` with `images`; the same list again changes
 * nothing. A deleted product is 404; a variant id not of this product is 400.
 */
export async function setProductImages(tx: Tx, shopId: string, id: string, images: ProductImagesInput['images']): Promise<ProductDetail> {
  const [product] = await tx<{ deletedAt: Date | null }[]>`select deleted_at from products where id = ${id} for update`;
  if (!product || product.deletedAt) throw new Problem('not-found', `no product ${id}`);
  const before = await getProduct(tx, id);
  const variantIds = new Set(before.variants.map((variant) => variant.id));
  refuseAbsent(
    images.flatMap((image, index) =>
      (image.variantIds ?? []).flatMap((variantId, position) =>
        variantIds.has(variantId)
          ? []
          : [{ path: `images.${index}.variantIds.${position}`, noun: 'variant of this product', id: variantId }],
      ),
    ),
  );
  const repeated = images.findIndex((image, index) => images.findIndex((other) => other.url === image.url) !== index);
  if (repeated >= 0)
    throw new Problem('validation-failed', `${images[repeated]!.url} is listed twice`, {
      errors: [{ path: `images.${repeated}.url`, message: 'listed twice' }],
    });

  const kept = images.map((image) => before.images.find((stored) => stored.url === image.url));
  const keptIds = kept.flatMap((stored) => (stored ? [stored.id] : []));
  await tx`delete from product_images where product_id = ${id} ${keptIds.length > 0 ? tx`and id <> all(${keptIds}::uuid[])` : tx``}`;
  for (const [position, image] of images.entries()) {
    const stored = kept[position];
    const kind = image.kind ?? stored?.kind ?? 'image';
    const shows = image.variantIds ? [...new Set(image.variantIds)] : (stored?.variantIds ?? []);
    if (stored) {
      await tx`update product_images set kind = ${kind}, variant_ids = ${shows}::uuid[], position = ${position} where id = ${stored.id}`;
    } else {
      await tx`
        insert into product_images (shop_id, product_id, url, kind, variant_ids, position)
        values (${shopId}, ${id}, ${image.url}, ${kind}, ${shows}::uuid[], ${position})`;
    }
  }
  const after = await getProduct(tx, id);
  // Images naming thousands of variants could push the product's event past what a delivery carries.
  assertDeliverableSize(after);
  const changed = await recordUpdate(tx, { shopId, resource: 'product', resourceId: id, before, after });
  // As for any product edit, only a change of its data resurfaces it in synchronisation.
  if (changed) await tx`update products set updated_at = clock_timestamp() where id = ${id}`;
  return after;
}
