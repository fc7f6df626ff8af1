import { randomUUID } from 'node:crypto';
import { firstStep, OrderBook, type StatusStep, type TrackedOrder } from '../shared/order-book.js';
import { randomCode } from '../shared/codes.js';
import { findDistrict, quote, weightLimitGrams, type CarrierAFee } from './areas.js';
import { findNewArea } from './new-areas.js';
import type { CreateOrderBody } from './requests.js';
import { carrierAGraph, type CarrierAStatus } from './statuses.js';

/** A GHN shop: the account token that owns it, its id, where it picks up, and its callback URL. */
export interface CarrierAShop {
  shopId: number;
  token: string;
  districtId: number;
  /** Called verbatim; the partner's secret travels in it. */
  callbackUrl: string | null;
}

/** Where an order goes, as GHN resolved it: a district and ward of the old layout, or a 2025 province and ward. */
export type CarrierADestination =
  | { layout: 'old'; provinceId: number; districtId: number; wardCode: string; wardName: string }
  | { layout: 'new'; provinceId: number; provinceName: string; wardId: number; wardName: string };

export interface CarrierAOrder extends TrackedOrder<CarrierAStatus> {
  shopId: number;
  request: CreateOrderBody;
  destination: CarrierADestination;
  fee: CarrierAFee;
  totalFee: number;
  expectedDelivery: Date;
}

export type CreateOutcome = { created: CarrierAOrder } | { existing: CarrierAOrder } | { refused: string; codeMessage: string };

export interface CancelResult {
  order_code: string;
  result: boolean;
  message: string;
}

/** Carrier A's shops and orders, and the rules of creating and cancelling. */
export class CarrierAStore {
  private readonly shops = new Map<number, CarrierAShop>();
  private nextShopId = 885_001;
  readonly orders: OrderBook<CarrierAStatus, CarrierAOrder>;

  constructor(onChange: (order: CarrierAOrder, step: StatusStep<CarrierAStatus>) => void) {
    this.orders = new OrderBook(carrierAGraph, onChange);
  }

  /** Adds a shop, or updates the one with that id; missing credentials are made up. */
  registerShop(input: Partial<CarrierAShop>): CarrierAShop {
    const shopId = input.shopId ?? this.unusedShopId();
    const existing = this.shops.get(shopId);
    const shop: CarrierAShop = {
      shopId,
      token: input.token ?? existing?.token ?? randomUUID(),
      districtId: input.districtId ?? existing?.districtId ?? 1442,
      callbackUrl: input.callbackUrl === undefined ? (existing?.callbackUrl ?? null) : input.callbackUrl,
    };
    this.shops.set(shopId, shop);
    return shop;
  }

  shop(shopId: number): CarrierAShop | undefined {
    return this.shops.get(shopId);
  }

  shopsOf(token: string): CarrierAShop[] {
    return [...this.shops.values()].filter((shop) => shop.token === token);
  }

  /**
   * A repeated `client_order_code` gives the existing order back (the route answers it as a 400
   * naming the order); a queued rejection, an unserved address or too much weight refuses it.
   */
  create(shop: CarrierAShop, request: CreateOrderBody, injectedRejection: () => string | undefined): CreateOutcome {
    if (request.client_order_code !== undefined) {
      const existing = this.orders.findByClientRef(String(shop.shopId), request.client_order_code);
      if (existing) return { existing };
    }
    const rejection = injectedRejection();
    if (rejection !== undefined) return { refused: rejection, codeMessage: 'ORDER_REJECTED' };
    const destination = destinationOf(request);
    if ('refused' in destination) return destination;
    const limit = weightLimitGrams[request.service_type_id];
    if (request.weight > limit) {
      return {
        refused: `weight ${request.weight} g is over the ${limit} g limit of service_type_id ${request.service_type_id}`,
        codeMessage: 'WEIGHT_OVER_LIMIT',
      };
    }
    const createdAt = new Date();
    const sameProvince = findDistrict(shop.districtId)?.provinceId === destination.provinceId;
    const { fee, totalFee, expectedDelivery } = quote({
      weight: request.weight,
      insuranceValue: request.insurance_value,
      sameProvince,
      createdAt,
    });
    const order = this.orders.add({
      code: this.newOrderCode(),
      shopKey: String(shop.shopId),
      clientRef: request.client_order_code ?? null,
      status: 'ready_to_pick',
      history: [firstStep<CarrierAStatus>('ready_to_pick', createdAt)],
      createdAt,
      updatedAt: createdAt,
      shopId: shop.shopId,
      request,
      destination,
      fee,
      totalFee,
      expectedDelivery,
    });
    return { created: order };
  }

  /** The order a code names, if one of these shops owns it. */
  visible(shops: readonly CarrierAShop[], orderCode: string): CarrierAOrder | undefined {
    const order = this.orders.get(orderCode);
    return order && shops.some((shop) => shop.shopId === order.shopId) ? order : undefined;
  }

  visibleByClientCode(shops: readonly CarrierAShop[], clientOrderCode: string): CarrierAOrder | undefined {
    for (const shop of shops) {
      const order = this.orders.findByClientRef(String(shop.shopId), clientOrderCode);
      if (order) return order;
    }
    return undefined;
  }

  /** GHN answers each code on its own; cancelling a cancelled order succeeds again. */
  cancel(shop: CarrierAShop, orderCodes: readonly string[]): CancelResult[] {
    return orderCodes.map((orderCode) => {
      const order = this.visible([shop], orderCode);
      if (!order) return { order_code: orderCode, result: false, message: 'Order not found' };
      if (order.status === 'cancel') return { order_code: orderCode, result: true, message: 'The order was already cancelled' };
      if (!this.orders.graph.allows(order.status, 'cancel')) {
        return {
          order_code: orderCode,
          result: false,
          message: `The order is ${order.status}: it can be cancelled only before pick-up (ready_to_pick, picking)`,
        };
      }
      this.orders.move(order, 'cancel', { reason: 'Cancelled by the shop' });
      return { order_code: orderCode, result: true, message: 'OK' };
    });
  }

  private unusedShopId(): number {
    while (this.shops.has(this.nextShopId)) this.nextShopId += 1;
    return this.nextShopId;
  }

  private newOrderCode(): string {
    for (;;) {
      const code = `G${randomCode(7)}`;
      if (!this.orders.get(code)) return code;
    }
  }
}

/** The recipient's area: by district id and ward code, or with `is_new_to_address` by the 2025 names; or GHN's refusal. */
function destinationOf(request: CreateOrderBody): CarrierADestination | { refused: string; codeMessage: string } {
  if (request.is_new_to_address) {
    const found = findNewArea(request.to_province_name!, request.to_ward_name!);
    if ('refused' in found) return found;
    const { province, ward } = found;
    return { layout: 'new', provinceId: province.id, provinceName: province.name, wardId: ward.id, wardName: ward.name };
  }
  const district = findDistrict(request.to_district_id!);
  if (!district)
    return { refused: `to_district_id ${request.to_district_id} is outside the delivery area`, codeMessage: 'ADDRESS_NOT_SERVED' };
  const ward = district.wards.find((candidate) => candidate.code === request.to_ward_code);
  if (!ward)
    return {
      refused: `to_ward_code ${request.to_ward_code} is not a served ward of district ${district.id} (${district.name})`,
      codeMessage: 'ADDRESS_NOT_SERVED',
    };
  return { layout: 'old', provinceId: district.provinceId, districtId: district.id, wardCode: ward.code, wardName: ward.name };
}
