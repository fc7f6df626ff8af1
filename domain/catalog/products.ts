import { Problem, refuseAbsent } from '../kernel/index.js';
import { recordUpdate, writeEvent } from '../events/index.js';
import {
  assertDeliverableSize,
  assertDistinctCombinations,
  assertMatchKeysFree,
  assertVariantCount,
  attributeOrder,
  comboKey,
  matchKey,
  validateKeywords,
  type MatchEntry,
} from './product-rules.js';
import type { Tx } from '../kernel/index.js';
import { generateProductCode, variantCodes } from './product-codes.js';
import type { NewProduct, ProductChanges, ProductDetail, Variant, VariantInput } from './product-shapes.js';
import { canonicalAttributes, insertVariants, updateVariants, type AddedVariant, type Writer } from './variant-writes.js';

/**
 * `GET /products/{id}`: variants in order (removed ones not shown), attributes in the product's order.
 * The variants come as rows and take that order here: built as JSON by PostgreSQL, 2,000 of them cost
 * half as much again (bench: `GET /products/{id}`).
 */
export async function getProduct(tx: Tx, id: string): Promise<ProductDetail> {
  const [product] = await tx<(Omit<ProductDetail, 'variants'> & { attributeNames: string[] })[]>`
    select p.id, p.code, p.name, p.description, p.type, p.is_active, p.attribute_names,
      coalesce((select array_agg(pc.category_id order by pc.position) from product_categories pc where pc.product_id = p.id), '{}') as category_ids,
      coalesce((select json_agg(json_build_object('id', i.id, 'url', i.url, 'kind', i.kind, 'variantIds', to_json(i.variant_ids)) order by i.position)
        from product_images i where i.product_id = p.id), '[]') as images,
      api_time(p.created_at) as created_at, api_time(p.deleted_at) as deleted_at
    from products p where p.id = ${id}`;
  if (!product) throw new Problem('not-found', `no product ${id}`);
  const variants = await tx<Variant[]>`
    select v.id, v.code, v.barcode, api_decimal(v.price) as price, api_decimal(v.weight_grams) as weight_grams,
      api_decimal(v.length_cm) as length_cm, api_decimal(v.width_cm) as width_cm, api_decimal(v.height_cm) as height_cm,
      v.is_active, v.attributes, v.keywords
    from variants v where v.product_id = ${id} and v.removed_at is null order by v.position`;
  const { attributeNames, images, createdAt, deletedAt, ...identity } = product;
  const inOrder = (attributes: Record<string, string>) =>
    Object.fromEntries(attributeNames.filter((name) => Object.hasOwn(attributes, name)).map((name) => [name, attributes[name]!]));
  return {
    ...identity,
    variants: variants.map((variant) => ({ ...variant, attributes: inOrder(variant.attributes) })),
    images,
    createdAt,
    deletedAt,
  };
}

/**
 * `POST /products`: emits only `product.created`. A new product has no variant to edit, so a
 * variant's `id` is the id it is created with (a UUID no variant uses; empty has one made).
 */
export async function createProduct(tx: Tx, writer: Writer, input: NewProduct): Promise<ProductDetail> {
  await lockCatalog(tx, writer.shopId);
  const code = input.code?.trim() || (await generateProductCode(tx));
  const [taken] = await tx<{ name: string }[]>`select name from products where code_key = ${matchKey(code)}`;
  if (taken) throw new Problem('duplicate-code', `product code "${code}" is already used by ${taken.name}`);
  const [product] = await tx<{ id: string }[]>`
    insert into products (shop_id, code, name, description, type)
    values (${writer.shopId}, ${code}, ${input.name}, ${input.description ?? null}, ${input.type ?? 'simple'})
    returning id`;
  await writeProduct(
    tx,
    writer,
    { id: product!.id, code, name: input.name, attributeNames: [] },
    { categoryIds: input.categoryIds ?? [], variants: input.variants, creating: true },
  );
  const detail = await getProduct(tx, product!.id);
  assertDeliverableSize(detail);
  await writeEvent(tx, { shopId: writer.shopId, type: 'product.created', resourceId: detail.id, data: detail });
  return detail;
}

/** `PATCH /products/{id}`: only what is sent; variants patched partly, appended without `id`, never removed. */
export async function updateProduct(tx: Tx, writer: Writer, id: string, changes: ProductChanges): Promise<ProductDetail> {
  await lockCatalog(tx, writer.shopId);
  const [current] = await tx<{ id: string; code: string; name: string; attributeNames: string[]; deletedAt: Date | null }[]>`
    select id, code, name, attribute_names, deleted_at from products where id = ${id} for update`;
  if (!current || current.deletedAt) throw new Problem('not-found', `no product ${id}`);
  const before = await getProduct(tx, id);
  await tx`
    update products set
      name = ${changes.name ?? current.name},
      description = ${changes.description === undefined ? before.description : changes.description}
    where id = ${id}`;
  await writeProduct(
    tx,
    writer,
    { ...current, name: changes.name ?? current.name },
    { categoryIds: changes.categoryIds, variants: changes.variants ?? [] },
  );
  const after = await getProduct(tx, id);
  assertDeliverableSize(after);
  const changed = await recordUpdate(tx, { shopId: writer.shopId, resource: 'product', resourceId: id, before: before, after: after });
  // Only a change of the product's data resurfaces it in synchronisation.
  if (changed) await tx`update products set updated_at = clock_timestamp() where id = ${id}`;
  return after;
}

/** `DELETE /products/{id}`: soft; returns the record with `deletedAt`, which `product.deleted` carries too. Codes stay taken. */
export async function deleteProduct(tx: Tx, shopId: string, id: string): Promise<ProductDetail> {
  const [deleted] = await tx<{ id: string }[]>`
    update products set deleted_at = clock_timestamp(), updated_at = clock_timestamp() where id = ${id} and deleted_at is null returning id`;
  if (!deleted) throw new Problem('not-found', `no product ${id}`);
  const after = await getProduct(tx, id);
  await writeEvent(tx, { shopId, type: 'product.deleted', resourceId: id, data: after });
  return after;
}

/** Catalog writes of one shop queue up: the match-key registry and combinations are checked against a stable state. */
async function lockCatalog(tx: Tx, shopId: string): Promise<void> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`catalog:${shopId}`}, 0))`;
}

interface StoredVariant {
  id: string;
  code: string;
  attributes: Record<string, string>;
  comboKey: string;
  keywords: string[];
  removedAt: Date | null;
}

/** A variant of the product as it will be: stored (`variantId`) or added by the request (`index`). */
interface PlannedVariant {
  index: number | null;
  variantId: string | null;
  attributes: Record<string, string>;
  code: string;
  keywords: string[];
}

/**
 * Applies categories and variant changes, then checks every rule against the whole resulting
 * product: attribute limits, distinct combinations, new attributes only with `pos.products.update`,
 * and the shop's match-key registry. Any refusal rolls the transaction back. Each step is one
 * statement whatever the number of variants (up to MAX_VARIANTS).
 */
async function writeProduct(
  tx: Tx,
  writer: Writer,
  product: { id: string; code: string; name: string; attributeNames: string[] },
  changes: { categoryIds?: string[] | undefined; variants: VariantInput[]; creating?: boolean },
): Promise<void> {
  if (changes.categoryIds) await replaceCategories(tx, writer.shopId, product.id, changes.categoryIds);

  const stored = await tx<StoredVariant[]>`
    select id, code, attributes, combo_key, keywords, removed_at from variants where product_id = ${product.id} order by position`;
  // On create there is nothing to edit: an id there is the new variant's own (insertVariants).
  const edits = (input: VariantInput) => !changes.creating && Boolean(input.id);
  const live = stored.filter((variant) => !variant.removedAt);
  assertVariantCount(live.length + changes.variants.filter((input) => !edits(input)).length);
  const order = attributeOrder(
    product.attributeNames,
    changes.variants.map((variant) => variant.attributes ?? {}),
  );
  const canonical = await canonicalAttributes(tx, writer, order, changes.variants);

  // The product as it will be: stored variants with their edits, then the added ones.
  const storedById = new Map(stored.map((variant) => [variant.id, variant]));
  const resulting = new Map<string, PlannedVariant>(
    live.map(({ id, attributes, code, keywords }) => [id, { index: null, variantId: id, attributes, code, keywords }]),
  );
  /** The fields sent for each stored variant, several items naming one merged in order. */
  const sent = new Map<string, VariantInput>();
  const added: AddedVariant[] = [];
  const chosenIds = new Map<string, number>();
  for (const [index, input] of changes.variants.entries()) {
    const attributes = canonical[index]!;
    const keywords = input.keywords === undefined ? undefined : validateKeywords(input.keywords, `variants.${index}.keywords`);
    if (!edits(input)) {
      if (input.id && chosenIds.has(input.id))
        throw new Problem('validation-failed', `variants.${index}.id repeats variants.${chosenIds.get(input.id)}.id`, {
          errors: [{ path: `variants.${index}.id`, message: `the id of variants.${chosenIds.get(input.id)} already` }],
        });
      if (input.id) chosenIds.set(input.id, index);
      added.push({ input, index, attributes, keywords: keywords ?? [] });
      continue;
    }
    const target = storedById.get(input.id!);
    if (!target)
      throw new Problem('validation-failed', `variant ${input.id} is not a variant of this product`, {
        errors: [{ path: `variants.${index}.id`, message: 'not a variant of this product' }],
      });
    if (target.removedAt) throw new Problem('variant-removed', `variant ${input.id} was removed from the product`);
    Object.assign(resulting.get(target.id)!, {
      index,
      ...(input.attributes ? { attributes } : {}),
      ...(input.code?.trim() ? { code: input.code.trim() } : {}),
      ...(keywords ? { keywords } : {}),
    });
    sent.set(target.id, { ...sent.get(target.id), ...input });
  }
  const codes = await variantCodes(
    tx,
    product.code,
    added.map(({ input, index }, offset) => ({ code: input.code, position: stored.length + offset, path: `variants.${index}.code` })),
    [...resulting.values()].map((variant) => variant.code),
  );
  const everyVariant: PlannedVariant[] = [
    ...resulting.values(),
    ...added.map(({ index, attributes, keywords }, offset) => ({ index, variantId: null, attributes, code: codes[offset]!, keywords })),
  ];
  if (order.length > 0 || everyVariant.length > 1) assertDistinctCombinations(order, everyVariant);
  if (everyVariant.length === 0)
    throw new Problem('validation-failed', 'a product needs at least one variant', {
      errors: [{ path: 'variants', message: 'at least one' }],
    });
  const held = new Set([product.code, ...live.flatMap((variant) => [variant.code, ...variant.keywords])].map(matchKey));
  await checkMatchKeys(tx, product, everyVariant, changes.creating ? new Set() : held);

  // Stored variants: the fields sent, and the combination key in the (possibly longer) attribute order.
  const changed = live.flatMap((variant) => {
    const planned = resulting.get(variant.id)!;
    const key = comboKey(order, planned.attributes);
    return sent.has(variant.id) || key !== variant.comboKey
      ? [{ ...planned, id: variant.id, comboKey: key, sent: sent.get(variant.id) ?? {} }]
      : [];
  });
  await updateVariants(tx, product.id, changed);
  const addedIds = await insertVariants(
    tx,
    { shopId: writer.shopId, productId: product.id, firstPosition: stored.length, chosenIds: Boolean(changes.creating) },
    added.map((variant, offset) => ({ ...variant, code: codes[offset]!, comboKey: comboKey(order, variant.attributes) })),
  );
  await tx`
    update products p set attribute_names = ${order}, variant_count = live.variant_count, price_from = live.price_from, price_to = live.price_to
    from (
      select count(*)::int as variant_count, min(price) as price_from, max(price) as price_to
      from variants where product_id = ${product.id} and removed_at is null
    ) live
    where p.id = ${product.id}`;
  // A new product's keys are all new; a PATCH rewrites those of variants whose code or keywords were sent, and of added ones.
  const rekeyed = [...sent].filter(([, input]) => input.code?.trim() || input.keywords).map(([id]) => id);
  await rebuildMatchKeys(tx, product.id, changes.creating ? undefined : [...rekeyed, ...addedIds]);
}

/** The product's categories, in the order sent; an id naming no category of the shop is 400 (detail only). */
async function replaceCategories(tx: Tx, shopId: string, productId: string, categoryIds: string[]): Promise<void> {
  const unique = [...new Set(categoryIds)];
  const known = await tx<{ id: string }[]>`select id from categories where id = any(${unique})`;
  refuseAbsent(
    categoryIds.flatMap((id, index) =>
      known.some((row) => row.id === id) ? [] : [{ path: `categoryIds.${index}`, noun: 'category', id }],
    ),
  );
  await tx`delete from product_categories where product_id = ${productId}`;
  for (const [position, categoryId] of unique.entries()) {
    await tx`insert into product_categories (shop_id, product_id, category_id, position) values (${shopId}, ${productId}, ${categoryId}, ${position})`;
  }
}

/**
 * The product's codes and keywords against each other and the shop's registry. `held` are the keys
 * the product already has: the registry, checked when they came, is not read for them again.
 */
async function checkMatchKeys(
  tx: Tx,
  product: { id: string; code: string; name: string },
  variants: { variantId: string | null; code: string; keywords: string[]; index: number | null }[],
  held: ReadonlySet<string>,
): Promise<void> {
  const wanted: MatchEntry[] = [
    { key: product.code, source: 'product_code', productId: product.id, variantId: null, productName: product.name },
    ...variants.flatMap((variant, position) => {
      // New variants have no id yet: a placeholder keeps their keys apart from each other's.
      const variantId = variant.variantId ?? `new:${position}`;
      return [
        { key: variant.code, source: 'variant_code' as const, productId: product.id, variantId, productName: product.name },
        ...variant.keywords.map((keyword) => ({
          key: keyword,
          source: 'keyword' as const,
          productId: product.id,
          variantId,
          productName: product.name,
        })),
      ];
    }),
  ];
  const registry = await tx<MatchEntry[]>`
    select m.key_norm as key, m.source, m.product_id, m.variant_id, p.name as product_name
    from match_keys m join products p on p.id = m.product_id
    where m.key_norm = any(${[...new Set(wanted.map((entry) => matchKey(entry.key)))].filter((key) => !held.has(key))})
      and m.product_id <> ${product.id}
    order by m.key_norm, m.source, p.name`;
  assertMatchKeysFree(wanted, registry);
}

/**
 * The match keys of the product's code and variants (`variantIds` only, when given: a PATCH of one
 * price on 2,000 variants rewrites none), rebuilt from their rows.
 */
async function rebuildMatchKeys(tx: Tx, productId: string, variantIds?: string[]): Promise<void> {
  const whole = variantIds === undefined;
  if (!whole && variantIds.length === 0) return;
  const ofVariants = whole ? tx`v.product_id = ${productId}` : tx`v.id = any(${variantIds}::uuid[]) and v.product_id = ${productId}`;
  await tx`delete from match_keys where product_id = ${productId} ${whole ? tx`` : tx`and variant_id = any(${variantIds}::uuid[])`}`;
  await tx`
    insert into match_keys (shop_id, key_norm, source, product_id, variant_id)
    select p.shop_id, lower(p.code), 'product_code', p.id, null from products p where p.id = ${productId} and ${whole}
    union
    select v.shop_id, lower(v.code), 'variant_code', v.product_id, v.id from variants v where ${ofVariants} and v.removed_at is null
    union
    select v.shop_id, lower(k.keyword), 'keyword', v.product_id, v.id from variants v, unnest(v.keywords) as k(keyword)
    where ${ofVariants} and v.removed_at is null`;
}
