import { randomUUID } from 'node:crypto';
import { randomDigits } from '../shared/codes.js';
import { SimulatorError } from '../shared/errors.js';
import { firstStep, OrderBook, type StatusStep, type TrackedOrder } from '../shared/order-book.js';
import { destinationOf, quote, sameProvince, unservedReason, weightLimitKg, type CarrierBDestination } from './areas.js';
import type { CarrierBProduct, CreateOrderBody } from './requests.js';
import { carrierBGraph, carrierBStatusText, partialDeliveryFrom, type CarrierBStatusId } from './statuses.js';

/** A GHTK partner shop: its API token, the `X-Client-Source` code that goes with it, its callback URL. */
export interface CarrierBShop {
  token: string;
  clientSource: string;
  /** Called verbatim; the partner's secret travels in it. */
  callbackUrl: string | null;
}

export interface CarrierBOrder extends TrackedOrder<CarrierBStatusId> {
  /** The partner's `order.id`; a return leg carries its outbound order's. */
  partnerId: string;
  products: CarrierBProduct[];
  weightKg: number;
  /** Cash to collect; after a partial delivery, what was collected. */
  pickMoney: number;
  value: number;
  isFreeship: number;
  note: string;
  recipient: { name: string; tel: string; address: string };
  /** The recipient's area as the carrier understood its names. */
  destination: CarrierBDestination;
  area: 1 | 2;
  fee: number;
  insuranceFee: number;
  estimatedPick: string;
  estimatedDeliver: string;
  returnPartPackage: boolean;
  /** The label the undelivered goods come back under, after a partial delivery. */
  returnLabel: string | null;
  /** On a return leg: the outbound label. */
  parentLabel: string | null;
}

export type CreateOutcome = { created: CarrierBOrder } | { existing: CarrierBOrder } | { refused: string };
export type CancelOutcome = { cancelled: CarrierBOrder } | { refused: string };

/** Carrier B's shops and orders, and the rules of creating, cancelling and partial delivery. */
export class CarrierBStore {
  private readonly shops = new Map<string, CarrierBShop>();
  readonly orders: OrderBook<CarrierBStatusId, CarrierBOrder>;

  private readonly onChange: (order: CarrierBOrder, step: StatusStep<CarrierBStatusId>) => void;

  constructor(onChange: (order: CarrierBOrder, step: StatusStep<CarrierBStatusId>) => void) {
    this.onChange = onChange;
    this.orders = new OrderBook(carrierBGraph, onChange);
  }

  /** Adds a shop, or updates the one with that token; missing credentials are made up. */
  registerShop(input: Partial<CarrierBShop>): CarrierBShop {
    const token = input.token ?? randomUUID().replaceAll('-', '');
    const existing = this.shops.get(token);
    const shop: CarrierBShop = {
      token,
      clientSource: input.clientSource ?? existing?.clientSource ?? `S${randomDigits(6)}`,
      callbackUrl: input.callbackUrl === undefined ? (existing?.callbackUrl ?? null) : input.callbackUrl,
    };
    this.shops.set(token, shop);
    return shop;
  }

  shopByToken(token: string): CarrierBShop | undefined {
    return this.shops.get(token);
  }

  /**
   * An `order.id` the shop has used before gives the existing order back (answered as GHTK's
   * `ORDER_ID_EXIST`), cancelled or not; a queued rejection, an unserved address or too much
   * weight refuses the order.
   */
  create(shop: CarrierBShop, body: CreateOrderBody, injectedRejection: () => string | undefined): CreateOutcome {
    const { order: details, products } = body;
    const existing = this.orders.findByClientRef(shop.token, details.id);
    if (existing) return { existing };
    const rejection = injectedRejection();
    if (rejection !== undefined) return { refused: rejection };
    const destination = destinationOf(details.province, details.district, details.ward);
    if ('unserved' in destination) return { refused: `Address not served: ${destination.unserved}` };
    const pickUpUnserved = unservedReason(details.pick_province, details.pick_district);
    if (pickUpUnserved) return { refused: `Address not served: ${pickUpUnserved}` };
    const perKg = details.weight_option === 'gram' ? 1_000 : 1;
    const productsKg = products.map((product) => ({ ...product, weight: product.weight / perKg }));
    const weightKg = details.total_weight !== undefined ? details.total_weight / perKg : totalWeightKg(productsKg);
    if (weightKg > weightLimitKg)
      return { refused: `Total weight ${weightKg} kg is over the ${weightLimitKg} kg limit of the standard service` };

    const createdAt = new Date();
    const area = sameProvince(details.province, details.pick_province) ? 1 : 2;
    const { fee, insuranceFee, estimatedPick, estimatedDeliver } = quote({ weightKg, value: details.value, area, createdAt });
    const order = this.orders.add({
      code: this.newLabel(shop.clientSource, area),
      shopKey: shop.token,
      clientRef: details.id,
      status: 2,
      history: [firstStep<CarrierBStatusId>(2, createdAt)],
      createdAt,
      updatedAt: createdAt,
      partnerId: details.id,
      products: productsKg,
      weightKg,
      pickMoney: details.pick_money,
      value: details.value,
      isFreeship: details.is_freeship,
      note: details.note ?? '',
      recipient: {
        name: details.name,
        tel: details.tel,
        address: [details.address, details.hamlet, details.ward, details.district, details.province].filter(Boolean).join(', '),
      },
      destination,
      area,
      fee,
      insuranceFee,
      estimatedPick,
      estimatedDeliver,
      returnPartPackage: false,
      returnLabel: null,
      parentLabel: null,
    });
    return { created: order };
  }

  /** The order a label or `partner_id:<id>` names, if this shop owns it. */
  find(shop: CarrierBShop, reference: string): CarrierBOrder | undefined {
    if (reference.startsWith('partner_id:')) return this.orders.findByClientRef(shop.token, reference.slice('partner_id:'.length));
    const order = this.orders.get(reference);
    return order?.shopKey === shop.token ? order : undefined;
  }

  /** GHTK cancels until the parcel is out for delivery (status 4) and refuses a second cancel. */
  cancel(order: CarrierBOrder): CancelOutcome {
    if (order.status === -1) return { refused: 'The order is already cancelled' };
    if (!this.orders.graph.allows(order.status, -1)) {
      return { refused: `The order is at status ${order.status} (${carrierBStatusText.get(order.status)}): it can no longer be cancelled` };
    }
    this.orders.move(order, -1, { reason: 'Cancelled by the partner' });
    return { cancelled: order };
  }

  /**
   * Part of the goods delivered: the outbound label ends at 5 with `return_part_package`, and the
   * rest comes back under a new label, starting at 20 (returning), whose own steps are reported.
   */
  partialDelivery(
    label: string,
    input: { collectedMoney?: number; returnedProducts?: { name: string; quantity: number }[] },
  ): { outbound: CarrierBOrder; returnLeg: CarrierBOrder } {
    const outbound = this.orders.require(label);
    if (!partialDeliveryFrom.includes(outbound.status))
      throw new SimulatorError(409, `order ${label} is at status ${outbound.status}; partial delivery happens out for delivery (4)`);
    const returned = this.returnedProducts(outbound, input.returnedProducts);
    const returnedAt = new Date();
    const returnLeg = this.orders.add({
      ...outbound,
      code: this.newLabel(outbound.code.split('.')[0] ?? 'S0', outbound.area),
      clientRef: null,
      status: 20,
      history: [firstStep<CarrierBStatusId>(20, returnedAt)],
      createdAt: returnedAt,
      updatedAt: returnedAt,
      products: returned,
      weightKg: totalWeightKg(returned),
      pickMoney: 0,
      fee: 0,
      insuranceFee: 0,
      returnPartPackage: true,
      returnLabel: null,
      parentLabel: outbound.code,
    });
    outbound.returnPartPackage = true;
    outbound.returnLabel = returnLeg.code;
    outbound.pickMoney = input.collectedMoney ?? outbound.pickMoney;
    this.orders.move(outbound, 5, { reason: `Partly delivered; the rest returns under ${returnLeg.code}` });
    this.onChange(returnLeg, firstStep(returnLeg.status, returnedAt));
    return { outbound, returnLeg };
  }

  /** What comes back: the named products, or one of the last product; never everything. */
  private returnedProducts(order: CarrierBOrder, named: { name: string; quantity: number }[] | undefined): CarrierBProduct[] {
    const last = order.products.at(-1);
    const wanted = named ?? (last ? [{ name: last.name, quantity: 1 }] : []);
    const returned = wanted.map(({ name, quantity }) => {
      const product = order.products.find((candidate) => candidate.name === name);
      if (!product || quantity > product.quantity)
        throw new SimulatorError(400, `order ${order.code} has no ${quantity} × "${name}" to return`);
      return { ...product, quantity };
    });
    const shipped = order.products.reduce((sum, p) => sum + p.quantity, 0);
    if (returned.reduce((sum, p) => sum + p.quantity, 0) >= shipped)
      throw new SimulatorError(400, 'a partial delivery delivers something: return less than everything');
    return returned;
  }

  /** GHTK's label shape: the shop's code, the area, a number (`S123456.A1.123456789`). */
  private newLabel(shopCode: string, area: 1 | 2): string {
    for (;;) {
      const label = `${shopCode}.A${area}.${randomDigits(9)}`;
      if (!this.orders.get(label)) return label;
    }
  }
}

function totalWeightKg(products: readonly CarrierBProduct[]): number {
  // To the gram: 0.3 kg × 3 is 0.9 kg, not 0.8999….
  return Math.round(products.reduce((sum, product) => sum + product.weight * product.quantity, 0) * 1_000) / 1_000;
}
