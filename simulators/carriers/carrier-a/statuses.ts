import { StatusGraph } from '../shared/status-graph.js';

/** GHN's order statuses, as its detail endpoint and callbacks spell them. */
export const carrierAStatuses = [
  'ready_to_pick',
  'picking',
  'picked',
  'storing',
  'transporting',
  'sorting',
  'delivering',
  'delivered',
  'delivery_fail',
  'waiting_to_return',
  'return',
  'return_transporting',
  'returning',
  'returned',
  'cancel',
  'exception',
  'damage',
  'lost',
] as const;

export type CarrierAStatus = (typeof carrierAStatuses)[number];

/** Once the goods are in the carrier's hands they can be held up, damaged or lost. */
const troubles = ['exception', 'damage', 'lost'] as const;

/**
 * Where each status may go, the usual next step first. Cancelling is possible only where `cancel`
 * is listed: before pick-up. A failed pick-up goes back to `ready_to_pick`.
 */
export const carrierAGraph = new StatusGraph<CarrierAStatus>([
  ['ready_to_pick', ['picking', 'cancel']],
  ['picking', ['picked', 'ready_to_pick', 'cancel']],
  ['picked', ['storing', ...troubles]],
  ['storing', ['transporting', 'delivering', ...troubles]],
  ['transporting', ['sorting', ...troubles]],
  ['sorting', ['delivering', 'storing', ...troubles]],
  ['delivering', ['delivered', 'delivery_fail', ...troubles]],
  ['delivery_fail', ['delivering', 'waiting_to_return', ...troubles]],
  ['waiting_to_return', ['return', 'delivering', ...troubles]],
  ['return', ['return_transporting', ...troubles]],
  ['return_transporting', ['returning', ...troubles]],
  ['returning', ['returned', ...troubles]],
  ['exception', ['storing', 'delivering', 'returning', 'damage', 'lost']],
  ['delivered', []],
  ['returned', []],
  ['cancel', []],
  ['damage', []],
  ['lost', []],
]);

/** The `Description` GHN puts in its callbacks (in English here). */
export const carrierAStatusDescriptions: Record<CarrierAStatus, string> = {
  ready_to_pick: 'New order, waiting to be picked up',
  picking: 'The courier is picking up the goods',
  picked: 'Picked up',
  storing: 'In a hub',
  transporting: 'Moving between hubs',
  sorting: 'Being sorted',
  delivering: 'Out for delivery',
  delivered: 'Delivered',
  delivery_fail: 'Delivery failed',
  waiting_to_return: 'Waiting to be returned (delivery is retried for 24 to 48 hours)',
  return: 'To be returned',
  return_transporting: 'Return moving between hubs',
  returning: 'Being returned to the shop',
  returned: 'Returned to the shop',
  cancel: 'Cancelled',
  exception: 'Exception: the order needs handling',
  damage: 'Goods damaged',
  lost: 'Goods lost',
};

/** The hub GHN names in a callback's `Warehouse` once it holds the goods. */
export function warehouseFor(status: CarrierAStatus): string {
  return status === 'ready_to_pick' || status === 'picking' || status === 'cancel' ? '' : 'Bưu Cục 152 Trần Phú-Q.5-HCM';
}
