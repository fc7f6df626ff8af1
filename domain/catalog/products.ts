import { characterCount, Problem, refuseAbsent } from '../kernel/index.js';
import { recordUpdate, writeEvent } from '../events/index.js';
import { assertHolds } from '../access/index.js';
import {
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
import { generateProductCode, generateVariantCode } from './product-codes.js';
import type { ProductChanges, ProductDetail, ProductInput, VariantInput } from './product-shapes.js';

/** Who is writing: the permissions decide whether new attribute names or values may be added. */
export interface Writer {
  shopId: string;
  permissions: readonly string[];
}

/** `GET /products/{id}`: variants in order (removed ones not shown), attributes in the product's order. */
export async function getProduct(tx: Tx, id: string): Promise<ProductDetail> {
  const [product] = await tx<ProductDetail[]>`
    select p.id, p.code, p.name, p.description, p.type, p.is_active,
      coalesce((select array_agg(pc.category_id order by pc.position) from product_categories pc where pc.product_id = p.id), '{}') as category_ids,
      coalesce((select json_agg(json_build_object(
          'id', v.id, 'code', v.code, 'barcode', v.barcode, 'price', api_decimal(v.price),
          'weightGrams', api_decimal(v.weight_grams), 'lengthCm', api_decimal(v.length_cm), 'widthCm', api_decimal(v.width_cm), 'heightCm', api_decimal(v.height_cm),
          'isActive', v.is_active,
          'attributes', coalesce((select json_object_agg(a.name, v.attributes ->> a.name order by a.position)
                                  from unnest(p.attribute_names) with ordinality as a(name, position) where v.attributes ? a.name), '{}'::json),
          'keywords', to_json(v.keywords)) order by v.position)
        from variants v where v.product_id = p.id and v.removed_at is null), '[]') as variants,
      coalesce((select json_agg(json_build_object('id', i.id, 'url', i.url, 'kind', i.kind, 'variantIds', to_json(i.variant_ids)) order by i.position)
        from product_images i where i.product_id = p.id), '[]') as images,
      api_time(p.created_at) as created_at, api_time(p.deleted_at) as deleted_at
    from products p where p.id = ${id}`;
  if (!product) throw new Problem('not-found', `no product ${id}`);
  return product;
}

/** `POST /products`: emits only `product.created`. */
export async function createProduct(tx: Tx, writer: Writer, input: ProductInput): Promise<ProductDetail> {
  if (input.variants.some((variant) => variant.id)) {
    throw new Problem('validation-failed', 'a new product has no existing variants to edit', {
      errors: [{ path: 'variants', message: 'id is not allowed when creating' }],
    });
  }
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
    { categoryIds: input.categoryIds ?? [], variants: input.variants },
  );
  const detail = await getProduct(tx, product!.id);
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
  position: number;
  attributes: Record<string, string>;
  keywords: string[];
  removedAt: Date | null;
}

/**
 * Applies categories and variant changes, then checks every rule against the whole resulting
 * product: attribute limits, distinct combinations, new attributes only with `pos.products.update`,
 * and the shop's match-key registry. Any refusal rolls the transaction back.
 */
async function writeProduct(
  tx: Tx,
  writer: Writer,
  product: { id: string; code: string; name: string; attributeNames: string[] },
  changes: { categoryIds?: string[]; variants: VariantInput[] },
): Promise<void> {
  if (changes.categoryIds) await replaceCategories(tx, writer.shopId, product.id, changes.categoryIds);

  const stored = await tx<StoredVariant[]>`
    select id, code, position, attributes, keywords, removed_at from variants where product_id = ${product.id} order by position`;
  assertVariantCount(stored.filter((variant) => !variant.removedAt).length + changes.variants.filter((variant) => !variant.id).length);
  const order = attributeOrder(
    product.attributeNames,
    changes.variants.map((variant) => variant.attributes ?? {}),
  );
  const canonical = await canonicalAttributes(tx, writer, order, changes.variants);

  // The product as it will be: stored variants with their edits, then the appended ones.
  const resulting = stored
    .filter((variant) => !variant.removedAt)
    .map((variant) => ({
      index: null as number | null,
      variantId: variant.id,
      attributes: variant.attributes,
      code: variant.code,
      keywords: variant.keywords,
    }));
  const appended: { input: VariantInput; index: number; attributes: Record<string, string>; code: string; keywords: string[] }[] = [];
  let nextPosition = stored.length;
  for (const [index, input] of changes.variants.entries()) {
    const attributes = canonical[index]!;
    const keywords = input.keywords === undefined ? undefined : validateKeywords(input.keywords, `variants.${index}.keywords`);
    if (input.id) {
      const target = stored.find((variant) => variant.id === input.id);
      if (!target)
        throw new Problem('validation-failed', `variant ${input.id} is not a variant of this product`, {
          errors: [{ path: `variants.${index}.id`, message: 'not a variant of this product' }],
        });
      if (target.removedAt) throw new Problem('variant-removed', `variant ${input.id} was removed from the product`);
      const entry = resulting.find((variant) => variant.variantId === input.id)!;
      Object.assign(entry, {
        index,
        ...(input.attributes ? { attributes } : {}),
        ...(input.code?.trim() ? { code: input.code.trim() } : {}),
        ...(keywords ? { keywords } : {}),
      });
    } else {
      const code =
        input.code?.trim() ||
        (await generateVariantCode(
          tx,
          product.code,
          nextPosition,
          [...resulting.map((v) => v.code), ...appended.map((v) => v.code)],
          `variants.${index}.code`,
        ));
      nextPosition += 1;
      appended.push({ input, index, attributes, code, keywords: keywords ?? [] });
    }
  }
  const everyVariant = [
    ...resulting,
    ...appended.map((variant) => ({
      index: variant.index,
      variantId: null,
      attributes: variant.attributes,
      code: variant.code,
      keywords: variant.keywords,
    })),
  ];
  if (order.length > 0 || everyVariant.length > 1) assertDistinctCombinations(order, everyVariant);
  if (everyVariant.length === 0)
    throw new Problem('validation-failed', 'a product needs at least one variant', {
      errors: [{ path: 'variants', message: 'at least one' }],
    });

  await checkMatchKeys(tx, product, everyVariant);

  for (const input of changes.variants) {
    if (!input.id) continue;
    const entry = everyVariant.find((variant) => variant.variantId === input.id)!;
    await tx`
      update variants set
        code = ${entry.code},
        barcode = ${input.barcode === undefined ? tx`barcode` : input.barcode},
        price = ${input.price === undefined ? tx`price` : input.price},
        weight_grams = ${input.weightGrams === undefined ? tx`weight_grams` : input.weightGrams},
        length_cm = ${input.lengthCm === undefined ? tx`length_cm` : input.lengthCm},
        width_cm = ${input.widthCm === undefined ? tx`width_cm` : input.widthCm},
        height_cm = ${input.heightCm === undefined ? tx`height_cm` : input.heightCm},
        is_active = ${input.isActive === undefined ? tx`is_active` : input.isActive},
        attributes = ${tx.json(entry.attributes)},
        combo_key = ${comboKey(order, entry.attributes)},
        keywords = ${entry.keywords}
      where id = ${input.id} and product_id = ${product.id}`;
  }
  for (const [offset, variant] of appended.entries()) {
    const input = variant.input;
    await tx`
      insert into variants (shop_id, product_id, position, code, barcode, price, weight_grams, length_cm, width_cm, height_cm, is_active, attributes, combo_key, keywords)
      values (${writer.shopId}, ${product.id}, ${stored.length + offset}, ${variant.code}, ${input.barcode ?? null}, ${input.price ?? '0'},
              ${input.weightGrams ?? null}, ${input.lengthCm ?? null}, ${input.widthCm ?? null}, ${input.heightCm ?? null}, ${input.isActive ?? true},
              ${tx.json(variant.attributes)}, ${comboKey(order, variant.attributes)}, ${variant.keywords})`;
  }
  // Stored variants keep their combination key in the (possibly longer) attribute order.
  await tx`update products set attribute_names = ${order} where id = ${product.id}`;
  for (const variant of resulting) {
    await tx`update variants set combo_key = ${comboKey(order, variant.attributes)} where id = ${variant.variantId}`;
  }
  await rebuildMatchKeys(tx, product.id);
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
 * Maps each variant's attributes onto the shop's spelling of names and values (case-insensitive),
 * registering unknown ones, which needs `pos.products.update`.
 */
async function canonicalAttributes(tx: Tx, writer: Writer, order: string[], variants: VariantInput[]): Promise<Record<string, string>[]> {
  const names = [...new Set(variants.flatMap((variant) => Object.keys(variant.attributes ?? {})).map(matchKey))];
  if (names.length === 0) return variants.map(() => ({}));
  const known = await tx<{ id: string; name: string; value: string | null }[]>`
    select a.id, a.name, v.value from attributes a left join attribute_values v on v.attribute_id = a.id
    where lower(a.name) = any(${names})`;
  const unknown: string[] = [];
  const result = variants.map((variant, index) =>
    Object.fromEntries(
      Object.entries(variant.attributes ?? {}).map(([rawName, rawValue]) => {
        const value = rawValue.trim();
        if (value.length === 0 || characterCount(value) > 255)
          throw new Problem('validation-failed', `attribute ${rawName} needs a value of 1 to 255 characters`, {
            errors: [{ path: `variants.${index}.attributes.${rawName}`, message: '1 to 255 characters' }],
          });
        const name = order.find((candidate) => matchKey(candidate) === matchKey(rawName))!;
        const shopName = known.find((row) => matchKey(row.name) === matchKey(rawName))?.name;
        const shopValue = known.find(
          (row) => matchKey(row.name) === matchKey(rawName) && row.value !== null && matchKey(row.value) === matchKey(value),
        )?.value;
        if (!shopName) unknown.push(`name ${rawName}`);
        else if (!shopValue) unknown.push(`${shopName}=${value}`);
        return [shopName ?? name, shopValue ?? value];
      }),
    ),
  );
  if (unknown.length > 0) {
    assertHolds(
      writer.permissions,
      ['pos.products.update'],
      `adding attribute names or values not yet in the shop (${[...new Set(unknown)].join(', ')})`,
    );
    for (const attributes of result) {
      for (const [name, value] of Object.entries(attributes)) {
        const [attribute] = await tx<{ id: string }[]>`
          insert into attributes (shop_id, name) values (${writer.shopId}, ${name})
          on conflict (shop_id, lower(name)) do update set name = attributes.name
          returning id`;
        await tx`insert into attribute_values (shop_id, attribute_id, value) values (${writer.shopId}, ${attribute!.id}, ${value}) on conflict (attribute_id, lower(value)) do nothing`;
      }
    }
  }
  // The product order uses the shop's spelling of each name too.
  order.splice(0, order.length, ...order.map((name) => known.find((row) => matchKey(row.name) === matchKey(name))?.name ?? name));
  return result;
}

async function checkMatchKeys(
  tx: Tx,
  product: { id: string; code: string; name: string },
  variants: { variantId: string | null; code: string; keywords: string[]; index: number | null }[],
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
    where m.key_norm = any(${[...new Set(wanted.map((entry) => matchKey(entry.key)))]}) and m.product_id <> ${product.id}
    order by m.key_norm, m.source, p.name`;
  assertMatchKeysFree(wanted, registry);
}

async function rebuildMatchKeys(tx: Tx, productId: string): Promise<void> {
  await tx`delete from match_keys where product_id = ${productId}`;
  await tx`
    insert into match_keys (shop_id, key_norm, source, product_id, variant_id)
    select p.shop_id, lower(p.code), 'product_code', p.id, null from products p where p.id = ${productId}
    union
    select v.shop_id, lower(v.code), 'variant_code', v.product_id, v.id from variants v where v.product_id = ${productId} and v.removed_at is null
    union
    select v.shop_id, lower(k.keyword), 'keyword', v.product_id, v.id from variants v, unnest(v.keywords) as k(keyword)
    where v.product_id = ${productId} and v.removed_at is null`;
}
