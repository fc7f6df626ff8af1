import type { FastifyInstance, FastifyRequest } from 'fastify';
import { describeIssues } from '../shared/errors.js';
import { headerValue } from '../shared/http.js';
import type { EndpointFactory, Identified } from '../shared/simulator.js';
import { createdData, detailData, failure, success } from './payloads.js';
import { cancelBody, clientOrderCodeBody, createOrderBody, orderCodeBody } from './requests.js';
import type { CarrierAOrder, CarrierAShop, CarrierAStore } from './store.js';
import { registerCarrierAMasterData } from './master-data.js';

export const carrierAFaultKinds = ['create', 'detail', 'cancel', 'master-data'] as const;
export type CarrierAFaultKind = (typeof carrierAFaultKinds)[number];

const base = '/shiip/public-api/v2';

/** GHN's public API as far as a shop's shipments need it, its master data included. */
export function registerCarrierARoutes(
  api: FastifyInstance,
  deps: {
    store: CarrierAStore;
    endpoint: EndpointFactory<CarrierAFaultKind>;
    takeRejection: () => string | undefined;
    announceCreated: (order: CarrierAOrder) => void;
  },
): void {
  const { store, endpoint } = deps;
  const visibleShops = (request: FastifyRequest) => identifyShops(store, request);
  const namedShop = (request: FastifyRequest) => identifyShop(store, request);
  registerCarrierAMasterData(api, endpoint, visibleShops);

  api.post(
    `${base}/shipping-order/create`,
    endpoint('create', namedShop, (shop, request) => {
      const parsed = createOrderBody.safeParse(request.body);
      if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
      const outcome = store.create(shop, parsed.data, deps.takeRejection);
      if ('refused' in outcome) return failure(400, outcome.refused, outcome.codeMessage);
      if ('existing' in outcome) {
        const { code, clientRef } = outcome.existing;
        return failure(400, `client_order_code ${clientRef} already exists: order ${code}`, 'DUPLICATE_CLIENT_ORDER_CODE', {
          order_code: code,
          client_order_code: clientRef,
        });
      }
      deps.announceCreated(outcome.created);
      return success(createdData(outcome.created));
    }),
  );

  api.post(
    `${base}/shipping-order/detail`,
    endpoint('detail', visibleShops, (shops, request) => {
      const parsed = orderCodeBody.safeParse(request.body);
      if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
      const order = store.visible(shops, parsed.data.order_code);
      return order ? success(detailData(order)) : failure(400, `order ${parsed.data.order_code} not found`, 'ORDER_NOT_FOUND');
    }),
  );

  api.post(
    `${base}/shipping-order/detail-by-client-code`,
    endpoint('detail', visibleShops, (shops, request) => {
      const parsed = clientOrderCodeBody.safeParse(request.body);
      if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
      const order = store.visibleByClientCode(shops, parsed.data.client_order_code);
      return order
        ? success(detailData(order))
        : failure(400, `no order with client_order_code ${parsed.data.client_order_code}`, 'ORDER_NOT_FOUND');
    }),
  );

  api.post(
    `${base}/switch-status/cancel`,
    endpoint('cancel', namedShop, (shop, request) => {
      const parsed = cancelBody.safeParse(request.body);
      if (!parsed.success) return failure(400, describeIssues(parsed.error), 'USER_ERR_COMMON');
      return success(store.cancel(shop, parsed.data.order_codes));
    }),
  );
}

/**
 * GHN's credentials: the account's `Token`, and `ShopId` naming one of its shops (optional to
 * read: then every shop of the token). The rate limit counts per shop, or per token without one.
 */
function identifyShops(store: CarrierAStore, request: FastifyRequest): Identified<CarrierAShop[]> {
  const token = headerValue(request, 'token');
  const shops = token === undefined ? [] : store.shopsOf(token);
  if (shops.length === 0) return { refusal: failure(401, 'Token is not valid', 'USER_ERR_AUTH') };
  const shopId = headerValue(request, 'shopid');
  if (shopId === undefined) return { caller: shops, rateKey: `token:${token}` };
  const shop = shops.find((candidate) => String(candidate.shopId) === shopId);
  if (!shop) return { refusal: failure(403, `ShopId ${shopId} is not a shop of this token`, 'USER_ERR_PERMISSION') };
  return { caller: [shop], rateKey: `shop:${shop.shopId}` };
}

/** Creating and cancelling need the `ShopId` header. */
function identifyShop(store: CarrierAStore, request: FastifyRequest): Identified<CarrierAShop> {
  const identified = identifyShops(store, request);
  if ('refusal' in identified) return identified;
  const [shop] = identified.caller;
  if (headerValue(request, 'shopid') === undefined || !shop)
    return { refusal: failure(403, 'The ShopId header is required', 'USER_ERR_PERMISSION') };
  return { caller: shop, rateKey: identified.rateKey };
}
