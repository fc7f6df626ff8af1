import { describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.js';
import { useProductSuite, unique } from './product-kit.js';

/** The match-key registry: product codes, variant codes and keywords, unique in the shop. */
const { call, create } = useProductSuite();

describe('the match-key registry', () => {
  it('refuses a product code already used with 409 duplicate-code, case-insensitively', async () => {
    const code = `DUP-${unique()}`;
    await create({ code, name: 'First', variants: [{}] });
    await expectProblem(
      await call('POST', '/products', { code: code.toLowerCase(), name: 'Second', variants: [{}] }),
      409,
      'duplicate-code',
    );
  });

  it('refuses a variant code used by another variant with 409 duplicate-code', async () => {
    const first = await create({ name: 'Has variant', variants: [{ code: `V-${unique()}` }] });
    await expectProblem(
      await call('POST', '/products', { name: 'Copies it', variants: [{ code: first.variants[0]!.code }] }),
      409,
      'duplicate-code',
    );
  });

  it('refuses a keyword of another variant, or one repeated in the request, with 409 variant-keyword-taken', async () => {
    const keyword = `ao ${unique()}`;
    await create({ name: 'Owner', variants: [{ keywords: [keyword] }] });
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Thief', variants: [{ keywords: [keyword.toUpperCase()] }] }),
      409,
      'variant-keyword-taken',
    );
    expect(body.detail).toContain(keyword.toUpperCase());
    expect(body.detail).toContain('Owner');
    const twice = `twice ${unique()}`;
    await expectProblem(
      await call('POST', '/products', {
        name: 'Twice',
        variants: [
          { attributes: { Size: 'S' }, keywords: [twice] },
          { attributes: { Size: 'M' }, keywords: [twice] },
        ],
      }),
      409,
      'variant-keyword-taken',
    );
  });

  it('refuses a keyword equal to another product’s code with 409 match-key-taken and matchKeys', async () => {
    const code = `MK-${unique()}`;
    await create({ code, name: 'Code holder', variants: [{}] });
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Keyword', variants: [{ keywords: [code.toLowerCase()] }] }),
      409,
      'match-key-taken',
    );
    expect(body.matchKeys).toEqual([{ key: code.toLowerCase(), source: 'product_code', productName: 'Code holder' }]);
    const variantCode = `${code}-1`;
    const clash = await expectProblem(
      await call('POST', '/products', { code: variantCode, name: 'Code clash', variants: [{}] }),
      409,
      'match-key-taken',
    );
    expect(clash.matchKeys).toEqual([{ key: variantCode, source: 'variant_code', productName: 'Code holder' }]);
  });

  it('allows a keyword equal to its own variant code and a variant code equal to its own product code', async () => {
    const code = `OWN-${unique()}`;
    const sameCode = await create({ code, name: 'Own product code', variants: [{ code }] });
    expect(sameCode.variants[0]!.code).toBe(code);
    const variantCode = `VAR-${unique()}`;
    const ownKeyword = await create({ name: 'Own variant code', variants: [{ code: variantCode, keywords: [variantCode.toLowerCase()] }] });
    expect(ownKeyword.variants[0]).toMatchObject({ code: variantCode, keywords: [variantCode.toLowerCase()] });
    // Another variant may not take a code as its keyword.
    const body = await expectProblem(
      await call('POST', '/products', { name: 'Not own', variants: [{ keywords: [code] }] }),
      409,
      'match-key-taken',
    );
    expect(body.matchKeys).toEqual([
      { key: code, source: 'product_code', productName: 'Own product code' },
      { key: code, source: 'variant_code', productName: 'Own product code' },
    ]);
  });

  it('accepts one product’s key in every combination the spec allows, and refuses it on a sibling variant’s keyword', async () => {
    const code = `ALL-${unique()}`;
    // Product code, its variant's code and that variant's keyword: one product's key three times over.
    const threefold = await create({ code, name: 'Threefold', variants: [{ code, keywords: [code.toLowerCase()] }] });
    expect(threefold.variants[0]).toMatchObject({ code, keywords: [code.toLowerCase()] });
    // A keyword equal to its own product's code (its variant has a code of its own).
    const productCode = `PK-${unique()}`;
    const ownProduct = await create({ code: productCode, name: 'Own product', variants: [{ keywords: [productCode] }] });
    expect(ownProduct.variants[0]!.keywords).toEqual([productCode]);
    const updated = await call('PATCH', `/products/${ownProduct.id}`, {
      variants: [{ id: ownProduct.variants[0]!.id, keywords: [productCode, productCode.toLowerCase() + '-x'] }],
    });
    expect(updated.status, await updated.clone().text()).toBe(200);
    // Another variant of the same product is another variant: its code is not a sibling's keyword.
    const siblingCode = `SIB-${unique()}`;
    const body = await expectProblem(
      await call('POST', '/products', {
        name: 'Siblings',
        variants: [
          { attributes: { Size: 'S' }, code: siblingCode },
          { attributes: { Size: 'M' }, keywords: [siblingCode] },
        ],
      }),
      409,
      'match-key-taken',
    );
    expect(body.matchKeys).toEqual([{ key: siblingCode, source: 'variant_code', productName: 'Siblings' }]);
  });

  it('tells keys apart only by case: "A12 M" and "A12-M" differ', async () => {
    const suffix = unique();
    await create({ name: 'Spaced', variants: [{ keywords: [`A12 M ${suffix}`] }] });
    await create({ name: 'Dashed', variants: [{ keywords: [`A12-M ${suffix}`] }] });
  });
});
