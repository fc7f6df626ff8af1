import type { FastifyInstance, FastifyRequest } from 'fastify';
import { randomDigits } from '../shared/codes.js';
import { describeIssues } from '../shared/errors.js';
import { headerValue } from '../shared/http.js';
import type { EndpointFactory, Identified } from '../shared/simulator.js';
import { createdOrder, existingOrderError, failure, statusView, success } from './payloads.js';
import { createOrderBody } from './requests.js';
import type { CarrierBOrder, CarrierBShop, CarrierBStore } from './store.js';

export const carrierBFaultKinds = ['create', 'status', 'cancel'] as const;
export type CarrierBFaultKind = (typeof carrierBFaultKinds)[number];

/** A label, or `partner_id:<the partner's order.id>`. */
type ReferenceParams = { reference: string };

/** GHTK's shipment API as far as a shop's shipments need it. */
export function registerCarrierBRoutes(
  api: FastifyInstance,
  deps: { store: CarrierBStore; endpoint: EndpointFactory<CarrierBFaultKind>; takeRejection: () => string | undefined },
): void {
  const { store, endpoint } = deps;
  const shop = (request: FastifyRequest) => identify(store, request);
  const referenced = (caller: CarrierBShop, request: FastifyRequest): CarrierBOrder | undefined =>
    store.find(caller, (request.params as ReferenceParams).reference);

  // GHTK's documented path is `/services/shipment/order/?ver=1.5`; the query is accepted and ignored.
  api.post(
    '/services/shipment/order',
    endpoint('create', shop, (caller, request) => {
      const parsed = createOrderBody.safeParse(request.body);
      if (!parsed.success) return failure(describeIssues(parsed.error));
      const outcome = store.create(caller, parsed.data, deps.takeRejection);
      if ('refused' in outcome) return failure(outcome.refused);
      if ('existing' in outcome) return failure('The order id already exists', 200, existingOrderError(outcome.existing));
      return success({ order: createdOrder(outcome.created) });
    }),
  );

  api.get(
    '/services/shipment/v2/:reference',
    endpoint('status', shop, (caller, request) => {
      const order = referenced(caller, request);
      return order ? success({ order: statusView(order) }) : failure('Order not found');
    }),
  );

  api.post(
    '/services/shipment/cancel/:reference',
    endpoint('cancel', shop, (caller, request) => {
      const order = referenced(caller, request);
      if (!order) return failure('Order not found');
      const outcome = store.cancel(order);
      return 'refused' in outcome ? failure(outcome.refused) : success({ log_id: randomDigits(10) });
    }),
  );
}

/** GHTK's credentials: the `Token`, and the `X-Client-Source` partner code issued with it. The rate limit counts per token. */
function identify(store: CarrierBStore, request: FastifyRequest): Identified<CarrierBShop> {
  const token = headerValue(request, 'token');
  const shop = token === undefined ? undefined : store.shopByToken(token);
  if (!shop) return { refusal: failure('Token is not valid', 401) };
  if (headerValue(request, 'x-client-source') !== shop.clientSource) {
    return { refusal: failure('X-Client-Source does not match the token: use the partner code issued with it', 403) };
  }
  return { caller: shop, rateKey: shop.token };
}
