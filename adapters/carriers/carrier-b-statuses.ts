import type { ShipmentState } from '../../domain/shipments/index.js';

/**
 * Carrier B's (GHTK's) numeric status ids → the spec's shipment states: the one table of the
 * adapter, for both legs.
 *
 * Outbound: pending until the warehouse confirms pick-up (3), delivering until an ending. The
 * shipper's own reports (123, 127, 128, 45, 49, 410) are milestones (null): the warehouse's
 * confirmation that follows each of them sets the state. 13 (compensated) is a lost parcel. A plain
 * return (9 → 20 → 21 → 11) runs on the outbound label and sets returning / returned.
 *
 * Partial delivery: the outbound label ends at 5 (then 6) with `return_part_package: 1`; that leg
 * ends `partially_returned` (spec). The goods not delivered come back under a separate label whose
 * steps (20, 21, 11) are milestones of the same shipment with no state change (spec, return leg).
 */
export const carrierBStates = {
  outbound: {
    '-1': 'cancelled',
    '1': 'pending',
    '2': 'pending',
    '12': 'pending',
    '7': 'pending',
    '8': 'pending',
    '123': null,
    '127': null,
    '128': null,
    '3': 'delivering',
    '4': 'delivering',
    '10': 'delivering',
    '45': null,
    '49': null,
    '410': null,
    '9': 'delivery_failed',
    '5': 'delivered',
    '6': 'delivered',
    '20': 'returning',
    '21': 'returned',
    '11': 'returned',
    '13': 'lost',
  },
  /** 5 and 6 on an outbound label with `return_part_package: 1`. */
  partiallyDelivered: 'partially_returned',
  returnLeg: { '20': null, '21': null, '11': null },
} as const satisfies {
  outbound: Record<string, ShipmentState | null>;
  partiallyDelivered: ShipmentState;
  returnLeg: Record<string, null>;
};

const partialEndings = new Set([5, 6]);
const returnLegCodes = new Set(Object.keys(carrierBStates.returnLeg).map(Number));

/**
 * Which leg a report is about: with `return_part_package` set, the return codes are the separate
 * return label's steps; everything else (5 and 6 included) is the outbound label's.
 */
export function carrierBLeg(statusId: number, returnPartPackage: boolean): 'outbound' | 'return' {
  return returnPartPackage && returnLegCodes.has(statusId) ? 'return' : 'outbound';
}

/** The state a status id tells on its leg; null for a milestone that changes nothing, or an id we do not know. */
export function carrierBState(statusId: number, returnPartPackage: boolean): ShipmentState | null {
  if (carrierBLeg(statusId, returnPartPackage) === 'return') return null;
  if (returnPartPackage && partialEndings.has(statusId)) return carrierBStates.partiallyDelivered;
  const outbound: Record<string, ShipmentState | null> = carrierBStates.outbound;
  return Object.hasOwn(outbound, String(statusId)) ? outbound[String(statusId)]! : null;
}
