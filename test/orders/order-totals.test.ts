import { Decimal } from 'decimal.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computeOrderTotals, sumAmounts } from '../../domain/orders/order-totals.js';

/** A decimal string with at most `scale` decimals, below 10^digits. */
const decimal = (digits: number, scale: number, min = 0n) =>
  fc.bigInt({ min, max: 10n ** BigInt(digits + scale) - 1n }).map((units) => new Decimal(units.toString()).div(10 ** scale).toFixed());

const line = fc.record({ quantity: decimal(4, 3, 1n), unitPrice: decimal(9, 3) }).chain((amounts) => {
  const gross = new Decimal(amounts.quantity).times(amounts.unitPrice).toDecimalPlaces(3, Decimal.ROUND_HALF_UP);
  const maxDiscount = BigInt(gross.times(1000).toFixed());
  return fc
    .bigInt({ min: 0n, max: maxDiscount })
    .map((units) => ({ ...amounts, discount: new Decimal(units.toString()).div(1000).toFixed() }));
});

const charges = fc.record({ shippingFee: decimal(7, 3), freeShipping: fc.boolean(), surcharge: decimal(7, 3), tax: decimal(7, 3) });

describe('computeOrderTotals', () => {
  it('gives exact three-decimal totals equal to the sums recomputed from the lines', () => {
    fc.assert(
      fc.property(
        fc.array(line, { minLength: 1, maxLength: 20 }),
        charges,
        fc.double({ min: 0, max: 1, noNaN: true }),
        (lines, fees, share) => {
          const goods = lines.reduce(
            (sum, item) =>
              sum.plus(new Decimal(item.quantity).times(item.unitPrice).toDecimalPlaces(3, Decimal.ROUND_HALF_UP)).minus(item.discount),
            new Decimal(0),
          );
          const discount = goods.times(share).toDecimalPlaces(3, Decimal.ROUND_DOWN).toFixed();
          const totals = computeOrderTotals(lines, { ...fees, discount });

          for (const value of [...totals.lineTotals, totals.totalPrice, totals.totalAmount]) {
            expect(value).toMatch(/^\d+(\.\d{1,3})?$/);
            expect(value).not.toMatch(/\.\d*0$/);
          }
          totals.lineTotals.forEach((total, index) => {
            const item = lines[index]!;
            expect(new Decimal(total).plus(item.discount).minus(new Decimal(item.quantity).times(item.unitPrice)).abs().lte('0.0005')).toBe(
              true,
            );
          });
          const recomputedPrice = totals.lineTotals.reduce((sum, total) => sum.plus(total), new Decimal(0));
          expect(totals.totalPrice).toBe(recomputedPrice.toFixed());
          const recomputedAmount = recomputedPrice
            .minus(discount)
            .plus(fees.freeShipping ? 0 : fees.shippingFee)
            .plus(fees.surcharge)
            .plus(fees.tax);
          expect(totals.totalAmount).toBe(recomputedAmount.toFixed());
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses a line discount above the line amount and an order discount above the total', () => {
    const free = { shippingFee: '0', freeShipping: false, surcharge: '0', tax: '0' };
    expect(() => computeOrderTotals([{ quantity: '1', unitPrice: '10', discount: '10.001' }], { ...free, discount: '0' })).toThrow(
      /line discount/,
    );
    expect(() => computeOrderTotals([{ quantity: '1', unitPrice: '10', discount: '0' }], { ...free, discount: '10.001' })).toThrow(
      /order discount/,
    );
  });

  it('sums payments exactly', () => {
    fc.assert(
      fc.property(fc.array(decimal(9, 3), { maxLength: 30 }), (amounts) => {
        const expected = amounts.reduce((sum, amount) => sum + BigInt(new Decimal(amount).times(1000).toFixed()), 0n);
        expect(new Decimal(sumAmounts(amounts)).times(1000).toFixed()).toBe(expected.toString());
      }),
    );
  });
});
