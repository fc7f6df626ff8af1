import { characterCount, Problem } from '../kernel/index.js';

/** Limits of the spec: attributes per product, values per attribute, keywords per variant. */
export const MAX_ATTRIBUTES = 10;
export const MAX_VALUES_PER_ATTRIBUTE = 100;
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 50;
/**
 * Ours (docs/decisions/0045-at-most-100-variants-per-product.md): live variants per product, counting
 * stored ones and those a PATCH appends.
 */
export const MAX_VARIANTS = 100;
/** Product and variant codes (the tables' check constraints). */
export const MAX_CODE_LENGTH = 100;

/** Names, values, codes and keywords compare case-insensitively, and only so (`A12 M` and `A12-M` differ). */
export function matchKey(text: string): string {
  return text.trim().toLowerCase();
}

export interface VariantCombination {
  /** Index in the request, or null for a stored variant that was not sent. */
  index: number | null;
  variantId: string | null;
  attributes: Record<string, string>;
}

/**
 * The product's attribute order: the first variant's names first, then any other name in order of
 * appearance. Names compare case-insensitively; the first spelling met is kept.
 */
export function attributeOrder(existing: readonly string[], variants: readonly Record<string, string>[]): string[] {
  const order = [...existing];
  for (const attributes of variants) {
    for (const name of Object.keys(attributes)) {
      if (!order.some((known) => matchKey(known) === matchKey(name))) order.push(name.trim());
    }
  }
  if (order.length > MAX_ATTRIBUTES) {
    throw new Problem('validation-failed', `a product has at most ${MAX_ATTRIBUTES} attributes (got ${order.length})`, {
      errors: [{ path: 'variants', message: `at most ${MAX_ATTRIBUTES} attributes` }],
    });
  }
  return order;
}

/** 400 `validation-failed` on `variants` when the product as it will be has more than MAX_VARIANTS variants. */
export function assertVariantCount(count: number): void {
  if (count > MAX_VARIANTS) {
    throw new Problem('validation-failed', `a product has at most ${MAX_VARIANTS} variants (it would have ${count})`, {
      errors: [{ path: 'variants', message: `at most ${MAX_VARIANTS} variants per product` }],
    });
  }
}

/** The combination of a variant in the product's order: lower-cased values joined, missing as empty. */
export function comboKey(order: readonly string[], attributes: Record<string, string>): string {
  const byKey = new Map(Object.entries(attributes).map(([name, value]) => [matchKey(name), matchKey(value)]));
  return order.map((name) => byKey.get(matchKey(name)) ?? '').join('\u001f');
}

/** 409 `variant-combo-duplicate` when two variants (sent or stored) share a combination; at most 100 values per attribute. */
export function assertDistinctCombinations(order: readonly string[], variants: readonly VariantCombination[]): void {
  for (const name of order) {
    const values = new Set(
      variants
        .map((variant) => Object.entries(variant.attributes).find(([key]) => matchKey(key) === matchKey(name))?.[1])
        .filter(Boolean)
        .map((value) => matchKey(value!)),
    );
    if (values.size > MAX_VALUES_PER_ATTRIBUTE) {
      throw new Problem('validation-failed', `attribute ${name} has ${values.size} values; at most ${MAX_VALUES_PER_ATTRIBUTE}`, {
        errors: [{ path: 'variants', message: `at most ${MAX_VALUES_PER_ATTRIBUTE} values per attribute` }],
      });
    }
  }
  const seen = new Map<string, VariantCombination>();
  const clashes: string[] = [];
  for (const variant of variants) {
    const key = comboKey(order, variant.attributes);
    const first = seen.get(key);
    if (first) clashes.push(`${describeCombination(order, first.attributes)} (${describeVariant(first)} and ${describeVariant(variant)})`);
    else seen.set(key, variant);
  }
  if (clashes.length > 0) throw new Problem('variant-combo-duplicate', `variants share an attribute combination: ${clashes.join('; ')}`);
}

function describeCombination(order: readonly string[], attributes: Record<string, string>): string {
  const parts = order.map((name) => `${name}=${Object.entries(attributes).find(([key]) => matchKey(key) === matchKey(name))?.[1] ?? ''}`);
  return parts.length > 0 ? parts.join(', ') : 'no attributes';
}

function describeVariant(variant: VariantCombination): string {
  return variant.index === null ? `stored variant ${variant.variantId}` : `variants.${variant.index}`;
}

/** Keywords: at most 20, each 1–50 characters on one line; the set as given, trimmed. */
export function validateKeywords(keywords: readonly string[], path: string): string[] {
  if (keywords.length > MAX_KEYWORDS)
    throw new Problem('validation-failed', `at most ${MAX_KEYWORDS} keywords per variant`, {
      errors: [{ path, message: `at most ${MAX_KEYWORDS}` }],
    });
  return keywords.map((keyword, index) => {
    const trimmed = keyword.trim();
    if (trimmed.length < 1 || characterCount(trimmed) > MAX_KEYWORD_LENGTH || /[\r\n]/.test(keyword)) {
      throw new Problem(
        'validation-failed',
        `keyword ${JSON.stringify(keyword)} must be 1 to ${MAX_KEYWORD_LENGTH} characters on one line`,
        { errors: [{ path: `${path}.${index}`, message: `1 to ${MAX_KEYWORD_LENGTH} characters, single line` }] },
      );
    }
    return trimmed;
  });
}

export type MatchSource = 'product_code' | 'variant_code' | 'keyword';

export interface MatchEntry {
  key: string;
  source: MatchSource;
  productId: string;
  variantId: string | null;
  productName: string;
}

/**
 * Whether two entries of the one match-key registry may share a key: only a keyword equal to its own
 * variant's code, and a variant code equal to its own product's code.
 */
export function mayShareKey(a: MatchEntry, b: MatchEntry): boolean {
  if (a.variantId !== null && a.variantId === b.variantId && a.source !== b.source) return true;
  const pair = [a, b].sort((x, y) => x.source.localeCompare(y.source));
  return pair[0]!.source === 'product_code' && pair[1]!.source === 'variant_code' && pair[0]!.productId === pair[1]!.productId;
}

/**
 * Checks the entries a write wants against each other and against the registry's other entries, and
 * refuses the first kind of clash found: keyword against keyword → `variant-keyword-taken`; code
 * against code of the same kind → `duplicate-code`; anything else → `match-key-taken` with `matchKeys`.
 */
export function assertMatchKeysFree(wanted: readonly MatchEntry[], registry: readonly MatchEntry[]): void {
  const clashes: [MatchEntry, MatchEntry][] = [];
  wanted.forEach((entry, index) => {
    for (const other of [...wanted.slice(0, index), ...registry]) {
      if (matchKey(other.key) === matchKey(entry.key) && !mayShareKey(entry, other)) clashes.push([entry, other]);
    }
  });
  if (clashes.length === 0) return;
  const keywordClashes = clashes.filter(([a, b]) => a.source === 'keyword' && b.source === 'keyword');
  if (keywordClashes.length > 0) {
    const described = keywordClashes.map(
      ([a, b]) =>
        `"${a.key}" (held by ${b.variantId === a.variantId ? 'the same variant twice' : `variant ${b.variantId} of ${b.productName}`})`,
    );
    throw new Problem('variant-keyword-taken', `keywords already taken: ${described.join('; ')}`);
  }
  const codeClashes = clashes.filter(([a, b]) => a.source !== 'keyword' && a.source === b.source);
  if (codeClashes.length > 0) {
    throw new Problem(
      'duplicate-code',
      `codes already used in the shop: ${codeClashes.map(([a, b]) => `"${a.key}" (${b.productName})`).join('; ')}`,
    );
  }
  const matchKeys = clashes.map(([a, b]) => ({ key: a.key, source: b.source, productName: b.productName }));
  throw new Problem(
    'match-key-taken',
    `keys already in the shop's match-key registry: ${clashes.map(([a, b]) => `"${a.key}" is a ${b.source.replace('_', ' ')} of ${b.productName}`).join('; ')}`,
    {
      extra: { matchKeys },
    },
  );
}
