import { assertHolds } from '../access/index.js';
import { characterCount, Problem, type Fragment, type Tx } from '../kernel/index.js';
import { matchKey } from './product-rules.js';
import type { VariantInput } from './product-shapes.js';

/**
 * The variant rows of one product write, each a single statement however many variants it touches
 * (up to MAX_VARIANTS): the shop's attribute names and values, stored variants updated, new ones
 * inserted.
 */

/** Who is writing: the permissions decide whether new attribute names or values may be added. */
export interface Writer {
  shopId: string;
  permissions: readonly string[];
}

/** A variant the request adds, its attributes in the shop's spelling. */
export interface AddedVariant {
  input: VariantInput;
  index: number;
  attributes: Record<string, string>;
  keywords: string[];
}

/**
 * Maps each variant's attributes onto the shop's spelling of names and values (case-insensitive; a
 * name or value new to the shop keeps the first spelling the request uses), registering the new
 * ones, which needs `pos.products.update`. `order` takes the shop's spelling of each name too.
 */
export async function canonicalAttributes(
  tx: Tx,
  writer: Writer,
  order: string[],
  variants: VariantInput[],
): Promise<Record<string, string>[]> {
  const names = [...new Set(variants.flatMap((variant) => Object.keys(variant.attributes ?? {})).map(matchKey))];
  if (names.length === 0) return variants.map(() => ({}));
  const known = await tx<{ name: string; value: string | null }[]>`
    select a.name, v.value from attributes a left join attribute_values v on v.attribute_id = a.id
    where lower(a.name) = any(${names})`;
  const shop = new Map<string, { name: string; isNew: boolean; values: Map<string, { value: string; isNew: boolean }> }>();
  for (const row of known) {
    const attribute = shop.get(matchKey(row.name)) ?? { name: row.name, isNew: false, values: new Map() };
    shop.set(matchKey(row.name), attribute);
    if (row.value !== null && !attribute.values.has(matchKey(row.value)))
      attribute.values.set(matchKey(row.value), { value: row.value, isNew: false });
  }
  const unknown = new Set<string>();
  const result = variants.map((variant, index) =>
    Object.fromEntries(
      Object.entries(variant.attributes ?? {}).map(([rawName, rawValue]) => {
        const value = rawValue.trim();
        if (value.length === 0 || characterCount(value) > 255)
          throw new Problem('validation-failed', `attribute ${rawName} needs a value of 1 to 255 characters`, {
            errors: [{ path: `variants.${index}.attributes.${rawName}`, message: '1 to 255 characters' }],
          });
        let attribute = shop.get(matchKey(rawName));
        if (!attribute) {
          attribute = { name: order.find((candidate) => matchKey(candidate) === matchKey(rawName))!, isNew: true, values: new Map() };
          shop.set(matchKey(rawName), attribute);
        }
        let spelling = attribute.values.get(matchKey(value));
        if (!spelling) {
          spelling = { value, isNew: true };
          attribute.values.set(matchKey(value), spelling);
        }
        if (attribute.isNew) unknown.add(`name ${attribute.name}`);
        else if (spelling.isNew) unknown.add(`${attribute.name}=${spelling.value}`);
        return [attribute.name, spelling.value];
      }),
    ),
  );
  if (unknown.size > 0) {
    assertHolds(
      writer.permissions,
      ['pos.products.update'],
      `adding attribute names or values not yet in the shop (${[...unknown].join(', ')})`,
    );
    const attributes = [...shop.values()];
    const newNames = attributes.filter((attribute) => attribute.isNew).map((attribute) => attribute.name);
    const newValues = attributes.flatMap((attribute) =>
      [...attribute.values.values()].filter((spelling) => spelling.isNew).map(({ value }) => ({ name: attribute.name, value })),
    );
    await tx`
      insert into attributes (shop_id, name) select ${writer.shopId}, name from unnest(${newNames}::text[]) as n(name)
      on conflict (shop_id, lower(name)) do nothing`;
    await tx`
      insert into attribute_values (shop_id, attribute_id, value)
      select ${writer.shopId}, a.id, n.value
      from jsonb_to_recordset(${tx.json(newValues)}) as n(name text, value text) join attributes a on lower(a.name) = lower(n.name)
      on conflict (attribute_id, lower(value)) do nothing`;
  }
  order.splice(0, order.length, ...order.map((name) => shop.get(matchKey(name))?.name ?? name));
  return result;
}

/** A stored variant as the write leaves it: `sent` holds the request's fields for it (none when only its combination key moves). */
export interface UpdatedVariant {
  id: string;
  code: string;
  attributes: Record<string, string>;
  comboKey: string;
  keywords: string[];
  sent: VariantInput;
}

/** Updates stored variants in one statement: a field absent from `sent` keeps its value, null clears it. */
export async function updateVariants(tx: Tx, productId: string, variants: UpdatedVariant[]): Promise<void> {
  if (variants.length === 0) return;
  const rows = variants.map((variant) => ({
    id: variant.id,
    code: variant.code,
    attributes: variant.attributes,
    combo_key: variant.comboKey,
    keywords: variant.keywords,
    sent: variant.sent,
  }));
  const field = (column: string, name: keyof VariantInput, type: Fragment) =>
    tx`${tx(column)} = case when r.sent ? ${name} then (r.sent ->> ${name})::${type} else v.${tx(column)} end`;
  await tx`
    update variants v set
      code = r.code, attributes = r.attributes, combo_key = r.combo_key, keywords = r.keywords,
      ${field('barcode', 'barcode', tx`text`)}, ${field('price', 'price', tx`numeric`)},
      ${field('weight_grams', 'weightGrams', tx`numeric`)}, ${field('length_cm', 'lengthCm', tx`numeric`)},
      ${field('width_cm', 'widthCm', tx`numeric`)}, ${field('height_cm', 'heightCm', tx`numeric`)}, ${field('is_active', 'isActive', tx`boolean`)}
    from jsonb_to_recordset(${tx.json(rows)}) as r(id uuid, code text, attributes jsonb, combo_key text, keywords text[], sent jsonb)
    where v.id = r.id and v.product_id = ${productId}`;
}

/**
 * Inserts the added variants in one statement, positions from `firstPosition`; returns their ids.
 * With `chosenIds` (a create) a variant's `id` is its id; one any variant already has, in this shop
 * or another, is 409 `conflict` naming only the request's path.
 */
export async function insertVariants(
  tx: Tx,
  target: { shopId: string; productId: string; firstPosition: number; chosenIds: boolean },
  variants: (AddedVariant & { code: string; comboKey: string })[],
): Promise<string[]> {
  if (variants.length === 0) return [];
  const rows = variants.map(({ input, attributes, keywords, code, comboKey }, offset) => ({
    id: (target.chosenIds && input.id) || null,
    position: target.firstPosition + offset,
    code,
    barcode: input.barcode ?? null,
    price: input.price ?? '0',
    weight_grams: input.weightGrams ?? null,
    length_cm: input.lengthCm ?? null,
    width_cm: input.widthCm ?? null,
    height_cm: input.heightCm ?? null,
    is_active: input.isActive ?? true,
    attributes,
    combo_key: comboKey,
    keywords,
  }));
  const inserted = await tx<{ id: string }[]>`
    insert into variants (id, shop_id, product_id, position, code, barcode, price, weight_grams, length_cm, width_cm, height_cm, is_active, attributes, combo_key, keywords)
    select coalesce(r.id, gen_random_uuid()), ${target.shopId}, ${target.productId}, r.position, r.code, r.barcode, r.price, r.weight_grams,
      r.length_cm, r.width_cm, r.height_cm, r.is_active, r.attributes, r.combo_key, r.keywords
    from jsonb_to_recordset(${tx.json(rows)}) as r(id uuid, position int, code text, barcode text, price numeric, weight_grams numeric,
      length_cm numeric, width_cm numeric, height_cm numeric, is_active boolean, attributes jsonb, combo_key text, keywords text[])
    order by r.position
    on conflict (id) do nothing
    returning id`;
  if (inserted.length === rows.length) return inserted.map((row) => row.id);
  const made = new Set(inserted.map((row) => row.id));
  const taken = variants
    .filter(({ input }) => input.id && !made.has(input.id))
    .map(({ input, index }) => `variants.${index}.id ${input.id}`);
  throw new Problem('conflict', `${taken.join(', ')} is already in use: send an id no variant has, or none to have one made`);
}
