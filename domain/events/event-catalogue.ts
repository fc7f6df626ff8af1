/** Every event type (spec, Events: Catalogue) and the permissions a flow's account needs to receive it. */
export const EVENT_READ_PERMISSIONS = {
  'order.created': ['pos.orders.read'],
  'order.updated': ['pos.orders.read'],
  'order.status_changed': ['pos.orders.read'],
  'order.deleted': ['pos.orders.read'],
  'product.created': ['pos.products.read'],
  'product.updated': ['pos.products.read'],
  'product.deleted': ['pos.products.read'],
  'inventory.stock_changed': ['pos.inventory.read', 'pos.products.read'],
  'customer.created': ['pos.customers.read'],
  'customer.updated': ['pos.customers.read'],
  'customer.deleted': ['pos.customers.read'],
  'shipment.created': ['pos.shipping.read', 'pos.orders.read'],
  'shipment.status_changed': ['pos.shipping.read', 'pos.orders.read'],
  'message.received': ['social.pages.read', 'social.conversations.read'],
  'message.sent': ['social.pages.read', 'social.conversations.read'],
} as const satisfies Record<string, readonly string[]>;

export type EventType = keyof typeof EVENT_READ_PERMISSIONS;
export const EVENT_TYPES = Object.keys(EVENT_READ_PERMISSIONS) as EventType[];

export function isEventType(value: string): value is EventType {
  // Own keys only: `in` would also accept inherited names such as `constructor`.
  return Object.hasOwn(EVENT_READ_PERMISSIONS, value);
}

/** Message events belong to a chat page; a flow listening to them must name one. */
export function needsPage(type: EventType): boolean {
  return type.startsWith('message.');
}

export const API_VERSION = 'v1';

export interface StoredEvent {
  id: string;
  type: EventType;
  createdAt: Date;
  changes: { fields: string[]; status?: { from: unknown; to: unknown } } | null;
  data: Record<string, unknown>;
  /** A flow's test-run, not something that happened in the shop: the envelope says so (`"test": true`). */
  test?: boolean;
}

/** Order-line fields that only an account holding `pos.products.read` may see. */
const PRODUCT_FIELDS_OF_ORDER_LINES = ['variantCode', 'variantName', 'productName'];

/**
 * An order as an account may read it, through the API or in a webhook: the product fields of its
 * lines only with `pos.products.read`.
 */
export function readableOrder<T extends object>(order: T, permissions: readonly string[]): T {
  const lines = (order as { lines?: unknown }).lines;
  if (permissions.includes('pos.products.read') || !Array.isArray(lines)) return order;
  return {
    ...order,
    lines: (lines as Record<string, unknown>[]).map((line) =>
      Object.fromEntries(Object.entries(line).filter(([field]) => !PRODUCT_FIELDS_OF_ORDER_LINES.includes(field))),
    ),
  };
}

/** `data` as the flow's account may read it: fields it lacks permission for are absent. */
export function readableEventData(
  event: { type: string; data: Record<string, unknown> },
  permissions: readonly string[],
): Record<string, unknown> {
  return event.type.startsWith('order.') ? readableOrder(event.data, permissions) : event.data;
}

/**
 * The envelope exactly as the spec shows it; `changes` only on update events, `test` only on a test
 * event (a field added within v1, spec Versioning 2: real events are sent as before).
 */
export function envelope(event: StoredEvent, shop: { id: string; slug: string }, permissions: readonly string[]): string {
  return JSON.stringify({
    id: event.id,
    type: event.type,
    apiVersion: API_VERSION,
    createdAt: event.createdAt.toISOString(),
    shop: { id: shop.id, slug: shop.slug },
    ...(event.test ? { test: true } : {}),
    ...(event.changes ? { changes: event.changes } : {}),
    data: readableEventData(event, permissions),
  });
}
