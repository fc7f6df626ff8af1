/**
 * Catalog: products with their variants, categories, attributes, match keys and images (products,
 * variants, product_categories, categories, attributes, attribute_values, match_keys,
 * product_images). Publishes the variant reads orders and inventory need. Other modules import only
 * this file.
 */

export { variantFacts, variantsForOrderLines } from './catalog-reads.js';
export { listCategories } from './categories.js';
export { MAX_KEYWORD_LENGTH, MAX_KEYWORDS, MAX_VARIANTS } from './product-rules.js';
export { listProducts } from './product-list.js';
export { ProductImagesInput, setProductImages } from './product-images.js';
export { createProduct, deleteProduct, getProduct, updateProduct } from './products.js';
export { NewProduct, ProductChanges, ProductDetail, ProductRow, ProductType, Variant, VariantInput } from './product-shapes.js';
