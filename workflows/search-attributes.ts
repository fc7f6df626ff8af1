import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * Custom search attributes an operator filters by in the Temporal Web UI; registered by the bootstrap.
 * Ten keywords and one bool: within what a SQL visibility store allows a namespace (10 keywords, 3 bools).
 */
export const SEARCH_ATTRIBUTES = {
  ShopId: 'Keyword',
  FlowId: 'Keyword',
  EventType: 'Keyword',
  EventId: 'Keyword',
  DeliveryStatus: 'Keyword',
  ShipmentId: 'Keyword',
  OrderId: 'Keyword',
  Carrier: 'Keyword',
  ShopSlug: 'Keyword',
  ShipmentStatus: 'Keyword',
  TestRun: 'Bool',
} as const;

export const ShopIdKey = defineSearchAttributeKey('ShopId', SearchAttributeType.KEYWORD);
export const FlowIdKey = defineSearchAttributeKey('FlowId', SearchAttributeType.KEYWORD);
export const EventTypeKey = defineSearchAttributeKey('EventType', SearchAttributeType.KEYWORD);
export const EventIdKey = defineSearchAttributeKey('EventId', SearchAttributeType.KEYWORD);
export const DeliveryStatusKey = defineSearchAttributeKey('DeliveryStatus', SearchAttributeType.KEYWORD);
export const ShipmentIdKey = defineSearchAttributeKey('ShipmentId', SearchAttributeType.KEYWORD);
export const OrderIdKey = defineSearchAttributeKey('OrderId', SearchAttributeType.KEYWORD);
export const CarrierKey = defineSearchAttributeKey('Carrier', SearchAttributeType.KEYWORD);
export const ShopSlugKey = defineSearchAttributeKey('ShopSlug', SearchAttributeType.KEYWORD);
export const ShipmentStatusKey = defineSearchAttributeKey('ShipmentStatus', SearchAttributeType.KEYWORD);
export const TestRunKey = defineSearchAttributeKey('TestRun', SearchAttributeType.BOOL);
