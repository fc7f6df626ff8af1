import {
  carrierBAdvanceControl,
  carrierBShopControl,
  registerPartialDeliveryControl,
  type PartialDeliveryRequest,
} from './carrier-b/controls.js';
import { callbackPayload, carrierBDialect } from './carrier-b/payloads.js';
import { carrierBFaultKinds, registerCarrierBRoutes, type CarrierBFaultKind } from './carrier-b/routes.js';
import type { CarrierBStatusId } from './carrier-b/statuses.js';
import { CarrierBStore, type CarrierBOrder, type CarrierBShop } from './carrier-b/store.js';
import type { StatusStep } from './shared/order-book.js';
import { CarrierSimulator, type CarrierStartOptions } from './shared/simulator.js';

export type { CarrierBOrder, CarrierBShop, CarrierBStatusId, CarrierBFaultKind };

/**
 * Carrier B, a stand-in for GHTK (Giao Hàng Tiết Kiệm): `/services/shipment/...` with `Token` and
 * `X-Client-Source` headers, numeric status ids, a status endpoint to poll (its callbacks may be
 * late or lost), and partial delivery with the rest returned under a new label. Controls under
 * `/_control` (and the inherited methods) drive it in tests.
 */
export class CarrierB extends CarrierSimulator<CarrierBFaultKind, CarrierBStatusId, CarrierBOrder, CarrierBShop> {
  readonly store = new CarrierBStore((order, step) => this.report(order, step));

  private constructor(options: CarrierStartOptions) {
    super(options, carrierBDialect, 'carrier-b-simulator');
    this.mount({
      faultKinds: carrierBFaultKinds,
      api: (scope) =>
        registerCarrierBRoutes(scope, { store: this.store, endpoint: this.endpoint, takeRejection: () => this.faults.takeRejection() }),
      controlSchemas: { shop: carrierBShopControl, advance: carrierBAdvanceControl },
      moreControls: (scope) => registerPartialDeliveryControl(scope, this.store),
    });
  }

  static async start(options: CarrierStartOptions = {}): Promise<CarrierB> {
    const carrier = new CarrierB(options);
    await carrier.listen(options);
    return carrier;
  }

  /** Delivers part of the goods; the rest starts back under a new label (see CarrierBStore). */
  partialDelivery(label: string, input: PartialDeliveryRequest = {}): { outbound: CarrierBOrder; returnLeg: CarrierBOrder } {
    return this.store.partialDelivery(label, input);
  }

  private report(order: CarrierBOrder, step: StatusStep<CarrierBStatusId>): void {
    const callbackUrl = this.store.shopByToken(order.shopKey)?.callbackUrl;
    if (!callbackUrl) return;
    this.callbacks.send(callbackUrl, callbackPayload(order, step), { orderCode: order.code, status: step.status });
  }
}
