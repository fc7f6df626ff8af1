import { Decimal } from 'decimal.js';
import { Problem } from '../kernel/index.js';

export interface LineAmounts {
  quantity: string;
  unitPrice: string;
  discount: string;
}

export interface OrderCharges {
  discount: string;
  shippingFee: string;
  freeShipping: boolean;
  surcharge: string;
  tax: string;
}

export interface OrderTotals {
  /** Per line, in the order given: round(quantity × unitPrice, 3 decimals, half up) − line discount. */
  lineTotals: string[];
  /** Σ lineTotals. */
  totalPrice: string;
  /** totalPrice − discount + (freeShipping ? 0 : shippingFee) + surcharge + tax. */
  totalAmount: string;
}

/** numeric(18, 3): 15 digits before the point. */
const AMOUNT_LIMIT = new Decimal('1e15');

/**
 * The money of an order, exact with decimal.js. Amounts are stored with three decimals, so a line's
 * quantity × unit price (up to six decimals) is rounded half up to three before its discount is
 * taken off. A discount larger than what it applies to, or a total beyond numeric(18, 3), is 400.
 */
export function computeOrderTotals(lines: readonly LineAmounts[], charges: OrderCharges): OrderTotals {
  const lineTotals = lines.map((line, index) => {
    const gross = new Decimal(line.quantity).times(line.unitPrice).toDecimalPlaces(3, Decimal.ROUND_HALF_UP);
    const total = gross.minus(line.discount);
    if (total.isNegative()) refuse(`lines.${index}.discount`, `the line discount exceeds the line amount ${gross.toFixed()}`);
    return checked(total, `lines.${index}`);
  });
  const totalPrice = checked(
    lineTotals.reduce((sum, total) => sum.plus(total), new Decimal(0)),
    'lines',
  );
  const totalAmount = totalPrice
    .minus(charges.discount)
    .plus(charges.freeShipping ? 0 : charges.shippingFee)
    .plus(charges.surcharge)
    .plus(charges.tax);
  if (totalAmount.isNegative()) refuse('discount', `the order discount exceeds the goods total and charges`);
  return {
    lineTotals: lineTotals.map((total) => total.toFixed()),
    totalPrice: totalPrice.toFixed(),
    totalAmount: checked(totalAmount, 'totalAmount').toFixed(),
  };
}

/** Σ amounts, exactly. */
export function sumAmounts(amounts: readonly string[]): string {
  return checked(
    amounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0)),
    'payments',
  ).toFixed();
}

function checked(value: Decimal, path: string): Decimal {
  if (value.abs().gte(AMOUNT_LIMIT)) refuse(path, `the amount exceeds ${AMOUNT_LIMIT.minus('0.001').toFixed()}`);
  return value;
}

function refuse(path: string, message: string): never {
  throw new Problem('validation-failed', message, { errors: [{ path, message }] });
}
