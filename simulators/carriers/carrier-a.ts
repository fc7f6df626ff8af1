import { carrierAAdvanceControl, carrierAShopControl } from './carrier-a/controls.js';
import { callbackPayload, carrierADialect } from './carrier-a/payloads.js';
import { carrierAFaultKinds, registerCarrierARoutes, type CarrierAFaultKind } from './carrier-a/routes.js';
import type { CarrierAStatus } from './carrier-a/statuses.js';
import { CarrierAStore, type CarrierAOrder, type CarrierAShop } from './carrier-a/store.js';
import { firstStep, type StatusStep } from './shared/order-book.js';
import { CarrierSimulator, type CarrierStartOptions } from './shared/simulator.js';

export type { CarrierAOrder, CarrierAShop, CarrierAStatus, CarrierAFaultKind };

/**
 * Carrier A, a stand-in for GHN (Giao Hàng Nhanh): its public API under `/shiip/public-api/v2`
 * with `Token` and `ShopId` headers, string statuses, and webhook callbacks to each shop's
 * registered URL. Controls under `/_control` (and the inherited methods) drive it in tests.
 */
export class CarrierA extends CarrierSimulator<CarrierAFaultKind, CarrierAStatus, CarrierAOrder, CarrierAShop> {
  readonly store = new CarrierAStore((order, step) => this.report(order, 'switch_status', step));

  private constructor(options: CarrierStartOptions) {
    super(options, carrierADialect, 'carrier-a-simulator');
    this.mount({
      faultKinds: carrierAFaultKinds,
      api: (scope) =>
        registerCarrierARoutes(scope, {
          store: this.store,
          endpoint: this.endpoint,
          takeRejection: () => this.faults.takeRejection(),
          announceCreated: (order) => this.report(order, 'create', firstStep(order.status, order.createdAt)),
        }),
      controlSchemas: { shop: carrierAShopControl, advance: carrierAAdvanceControl },
    });
  }

  static async start(options: CarrierStartOptions = {}): Promise<CarrierA> {
    const carrier = new CarrierA(options);
    await carrier.listen(options);
    return carrier;
  }

  private report(order: CarrierAOrder, type: 'create' | 'switch_status', step: StatusStep<CarrierAStatus>): void {
    const shop = this.store.shop(order.shopId);
    if (!shop?.callbackUrl) return;
    this.callbacks.send(shop.callbackUrl, callbackPayload(order, shop, type, step), { orderCode: order.code, status: step.status });
  }
}
