import type { Messages } from '../messages';
import type { events as vi } from '../vi/events';

export const events: Messages<typeof vi> = {
  types: {
    order: { created: 'Order created', updated: 'Order updated', status_changed: 'Order status changed', deleted: 'Order deleted' },
    product: { created: 'Product created', updated: 'Product updated', deleted: 'Product deleted' },
    inventory: { stock_changed: 'Stock changed' },
    customer: { created: 'Customer created', updated: 'Customer updated', deleted: 'Customer deleted' },
    shipment: { created: 'Shipment created', status_changed: 'Shipment status changed' },
    message: { received: 'Message received', sent: 'Message sent' },
  },
  orderStates: {
    new: 'New',
    waiting_stock: 'Waiting for stock',
    confirmed: 'Confirmed',
    packing: 'Packing',
    ready_to_ship: 'Ready to ship',
    shipped: 'Shipped',
    delivered: 'Delivered',
    paid: 'Paid',
    returning: 'Returning',
    partially_returned: 'Partially returned',
    returned: 'Returned',
    cancelled: 'Cancelled',
    deleted: 'Deleted',
  },
  matrix: {
    title: 'Order status matrix',
    intro:
      'Each box is a move between order states the shop allows. Untick it to refuse that move (in the app and through the API); tick it again to allow it again.',
    from: 'From “{{state}}” to',
    readOnly: 'You may only look; changing it needs “{{permission}}”.',
    allowed: 'Saved: moving from “{{from}}” to “{{to}}” is allowed.',
    removed: 'Saved: moving from “{{from}}” to “{{to}}” is no longer allowed.',
  },
};
