import { characterCount, Problem } from '../kernel/index.js';

/** Limits of the spec: attributes per product, values per attribute, keywords per variant. */
export const MAX_ATTRIBUTES = 10;
export const MAX_VALUES_PER_ATTRIBUTE = 100;
export const MAX_KEYWORDS = 20;
export const MAX_KEYWORD_LENGTH = 50;
/**
 * Ours, Shopify's figure (the spec sets none): live variants per product, counting stored ones and
 * those a PATCH appends. Enough for sizes × colours × a third attribute; the writes and reads of
 * such a product are set-based, measured by the bench's `GET /products/{id}` of 2,000 variants.
 */
export const MAX_VARIANTS = 2_048;
/**
 * Ours: a product as its events carry it, at most this many bytes once written as a JSON string, the
 * form a delivery's workflow input holds it in (domain/flows, delivery requests). Temporal refuses an
 * input over 2 MiB, and the event would then never be delivered. Only thousands of variants with many
 * long keywords come near it: 2,000 variants with five keywords each take about 1.1 MiB.
 */
export const MAX_PRODUCT_EVENT_BYTES = 1_835_008;
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

/** 400 `validation-failed` on `variants` when the product as written would be too big for its events to be delivered. */
export function assertDeliverableSize(product: object): void {
  const bytes = Buffer.byteLength(JSON.stringify(JSON.stringify(product)));
  if (bytes > MAX_PRODUCT_EVENT_BYTES) {
    throw new Problem(
      'validation-failed',
      `the product would take ${bytes} bytes in its events, more than the ${MAX_PRODUCT_EVENT_BYTES} an event may: fewer variants, keywords or attribute values`,
      { errors: [{ path: 'variants', message: `the product's data at most ${MAX_PRODUCT_EVENT_BYTES} bytes` }] },
    );
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
 * Whether two entries of the one match-key registry may share a key: entries of different kinds
 * that name the same thing (spec, `match-key-taken`: a key clashes when it "belongs to another
 * product or variant"). A product code shares with its own variants' codes and keywords; a variant
 * code with its own keywords. Two entries of one kind never share (a keyword is unique in the shop,
 * a code among codes of its kind). So `{code: "X", variants: [{code: "X", keywords: ["x"]}]}` is one
 * product's key three times over, and valid.
 */
function mayShareKey(a: MatchEntry, b: MatchEntry): boolean {
  if (a.source === b.source) return false;
  if (a.source === 'product_code' || b.source === 'product_code') return a.productId === b.productId;
  return a.variantId === b.variantId;
}

/** Clashes named in a refusal (and in `matchKeys`) at most. */
export const CLASHES_NAMED = 50;

/** The clashes of one kind: how many, and the first CLASHES_NAMED. */
class Clashes {
  count = 0;
  readonly named: [MatchEntry, MatchEntry][] = [];

  add(clash: [MatchEntry, MatchEntry]): void {
    this.count += 1;
    if (this.named.length < CLASHES_NAMED) this.named.push(clash);
  }

  /** The named clashes' descriptions joined, and how many more there are. */
  list(described: string[]): string {
    return `${described.join('; ')}${this.count > this.named.length ? `; and ${this.count - this.named.length} more` : ''}`;
  }
}

/**
 * Checks the entries a write wants against each other and against the registry's other entries, and
 * refuses the first kind of clash found: keyword against keyword → `variant-keyword-taken`; code
 * against code of the same kind → `duplicate-code`; anything else → `match-key-taken` with `matchKeys`.
 */
export function assertMatchKeysFree(wanted: readonly MatchEntry[], registry: readonly MatchEntry[]): void {
  // Each entry meets only those of its own key: the wanted ones before it, then the registry's.
  const byKey = new Map<string, { wanted: MatchEntry[]; registry: MatchEntry[] }>();
  const holdersOf = (key: string) => {
    const normalised = matchKey(key);
    let holders = byKey.get(normalised);
    if (!holders) byKey.set(normalised, (holders = { wanted: [], registry: [] }));
    return holders;
  };
  for (const entry of registry) holdersOf(entry.key).registry.push(entry);
  // By kind, in the order they are refused; each named up to CLASHES_NAMED times, so a bulk write
  // clashing everywhere gets a bounded answer.
  const clashes = { keyword: new Clashes(), code: new Clashes(), other: new Clashes() };
  for (const entry of wanted) {
    const holders = holdersOf(entry.key);
    for (const other of [...holders.wanted, ...holders.registry]) {
      if (mayShareKey(entry, other)) continue;
      const kind =
        entry.source === 'keyword' && other.source === 'keyword'
          ? 'keyword'
          : entry.source !== 'keyword' && entry.source === other.source
            ? 'code'
            : 'other';
      clashes[kind].add([entry, other]);
    }
    holders.wanted.push(entry);
  }
  if (clashes.keyword.count > 0) {
    const described = clashes.keyword.named.map(
      ([a, b]) =>
        `"${a.key}" (held by ${b.variantId === a.variantId ? 'the same variant twice' : `variant ${b.variantId} of ${b.productName}`})`,
    );
    throw new Problem('variant-keyword-taken', `keywords already taken: ${clashes.keyword.list(described)}`);
  }
  if (clashes.code.count > 0) {
    throw new Problem(
      'duplicate-code',
      `codes already used in the shop: ${clashes.code.list(clashes.code.named.map(([a, b]) => `"${a.key}" (${b.productName})`))}`,
    );
  }
  if (clashes.other.count === 0) return;
  const matchKeys = clashes.other.named.map(([a, b]) => ({ key: a.key, source: b.source, productName: b.productName }));
  throw new Problem(
    'match-key-taken',
    `keys already in the shop's match-key registry: ${clashes.other.list(clashes.other.named.map(([a, b]) => `"${a.key}" is a ${b.source.replace('_', ' ')} of ${b.productName}`))}`,
    {
      extra: { matchKeys },
    },
  );
}
