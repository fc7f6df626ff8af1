import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  assertDistinctCombinations,
  assertMatchKeysFree,
  attributeOrder,
  matchKey,
  type MatchEntry,
} from '../../domain/catalog/product-rules.js';

const letters = fc.constantFrom('s', 'S', 'm', 'M', 'l', 'đỏ', 'ĐỎ', 'xanh');
const names = fc.constantFrom('Size', 'size', 'Màu', 'MÀU');

/** Variants as a request may send them: a few attributes with values in any letter case. */
const variants = fc.array(fc.dictionary(names, letters, { maxKeys: 2 }), { minLength: 1, maxLength: 6 });

describe('attribute combinations (property)', () => {
  it('refuses exactly the sets where two variants share a combination, ignoring case', () => {
    fc.assert(
      fc.property(variants, (attributesList) => {
        // Only well-formed requests: each variant names each attribute once, whatever the case.
        fc.pre(
          attributesList.every((attributes) => new Set(Object.keys(attributes).map(matchKey)).size === Object.keys(attributes).length),
        );
        const order = attributeOrder([], attributesList);
        const combos = attributesList.map((attributes) =>
          order.map((name) => matchKey(Object.entries(attributes).find(([key]) => matchKey(key) === matchKey(name))?.[1] ?? '')).join('|'),
        );
        const hasDuplicate = new Set(combos).size !== combos.length;
        const run = () =>
          assertDistinctCombinations(
            order,
            attributesList.map((attributes, index) => ({ index, variantId: null, attributes })),
          );
        if (hasDuplicate) expect(run).toThrow(expect.objectContaining({ code: 'variant-combo-duplicate' }));
        else expect(run).not.toThrow();
      }),
      { numRuns: 400 },
    );
  });
});

const keyword = fc.constantFrom('ao do', 'AO DO', 'ao-do', 'quan', 'QUAN', 'mu');

describe('keyword uniqueness (property)', () => {
  it('refuses a keyword set exactly when a keyword repeats case-insensitively across variants or within one', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(keyword, { maxLength: 3 }), { minLength: 1, maxLength: 4 }),
        fc.array(keyword, { maxLength: 3 }),
        (requested, stored) => {
          const wanted: MatchEntry[] = requested.flatMap((keywords, index) =>
            keywords.map((key) => ({ key, source: 'keyword' as const, productId: 'p-new', variantId: `v${index}`, productName: 'New' })),
          );
          const registry: MatchEntry[] = stored.map((key, index) => ({
            key,
            source: 'keyword' as const,
            productId: 'p-old',
            variantId: `old${index}`,
            productName: 'Old',
          }));
          const all = [...wanted, ...registry].map((entry) => matchKey(entry.key));
          const clash =
            new Set(all).size !== all.length &&
            wanted.some((entry, index) => all.indexOf(matchKey(entry.key)) !== index || all.lastIndexOf(matchKey(entry.key)) !== index);
          const run = () => assertMatchKeysFree(wanted, registry);
          if (clash) expect(run).toThrow(expect.objectContaining({ code: 'variant-keyword-taken' }));
          else expect(run).not.toThrow();
        },
      ),
      { numRuns: 400 },
    );
  });
});
