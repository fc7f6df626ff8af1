import { ProductImagesInput, setProductImages } from '../../domain/catalog/index.js';
import { withShop } from '../../domain/kernel/index.js';
import { fail, list, shopFlag, uuidFlag, type Command } from './flags.js';

/** The product edit of the shop's staff (catalog): images. */
export const catalogCommands: Record<string, Command> = {
  'product:images': {
    usage: '--shop S --product ID --urls U,U',
    run: async (sql, f) => {
      const shop = await shopFlag(sql, f);
      const productId = uuidFlag(f, 'product');
      // In order, replacing every image; an empty list removes them all. An image kept keeps its variants.
      const urls = f.urls ?? fail('--urls is required (an empty value removes every image)');
      const parsed = ProductImagesInput.safeParse({ images: list(urls).map((url) => ({ url })) });
      if (!parsed.success) fail(parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '));
      const product = await withShop(sql, shop.id, (tx) => setProductImages(tx, shop.id, productId, parsed.data.images));
      return { productId, images: product.images };
    },
  },
};
