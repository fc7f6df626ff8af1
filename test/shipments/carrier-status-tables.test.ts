import { describe, expect, it } from 'vitest';
import { carrierAState, carrierAStates } from '../../adapters/carriers/carrier-a-statuses.js';
import { carrierBLeg, carrierBState, carrierBStates } from '../../adapters/carriers/carrier-b-statuses.js';
import { shipmentStates } from '../../domain/shipments/shipment-shapes.js';
import { carrierAStatuses } from '../../simulators/carriers/carrier-a/statuses.js';
import { carrierBStatusIds } from '../../simulators/carriers/carrier-b/statuses.js';

/** Every status each carrier can report, with the state it must give (null: a milestone, no change). */
const expectedA: [string, string | null][] = [
  ['ready_to_pick', 'pending'],
  ['picking', null],
  ['picked', 'delivering'],
  ['storing', 'delivering'],
  ['transporting', 'delivering'],
  ['sorting', 'delivering'],
  ['delivering', 'delivering'],
  ['delivered', 'delivered'],
  ['delivery_fail', 'delivery_failed'],
  ['waiting_to_return', 'delivery_failed'],
  ['return', 'returning'],
  ['return_transporting', 'returning'],
  ['returning', 'returning'],
  ['returned', 'returned'],
  ['cancel', 'cancelled'],
  ['exception', 'exception'],
  ['damage', 'damaged'],
  ['lost', 'lost'],
];

/** [status id, state on an ordinary outbound label, state on a label with return_part_package]. */
const expectedB: [number, string | null, string | null][] = [
  [-1, 'cancelled', 'cancelled'],
  [1, 'pending', 'pending'],
  [2, 'pending', 'pending'],
  [12, 'pending', 'pending'],
  [7, 'pending', 'pending'],
  [8, 'pending', 'pending'],
  [123, null, null],
  [127, null, null],
  [128, null, null],
  [3, 'delivering', 'delivering'],
  [4, 'delivering', 'delivering'],
  [10, 'delivering', 'delivering'],
  [45, null, null],
  [49, null, null],
  [410, null, null],
  [9, 'delivery_failed', 'delivery_failed'],
  // The outbound leg of a partial delivery ends partially_returned.
  [5, 'delivered', 'partially_returned'],
  [6, 'delivered', 'partially_returned'],
  // On the outbound label a plain return; on the return leg's own label, milestones only.
  [20, 'returning', null],
  [21, 'returned', null],
  [11, 'returned', null],
  [13, 'lost', 'lost'],
];

describe('carrier A status table', () => {
  it('covers exactly the statuses carrier A reports', () => {
    expect(Object.keys(carrierAStates).sort()).toEqual([...carrierAStatuses].sort());
    expect(expectedA.map(([code]) => code).sort()).toEqual([...carrierAStatuses].sort());
  });

  it.each(expectedA)('%s → %s', (code, state) => {
    expect(carrierAState(code)).toBe(state);
    if (state !== null) expect(shipmentStates).toContain(state);
  });

  it('gives no state for a code it does not know', () => {
    expect(carrierAState('teleported')).toBeNull();
    expect(carrierAState('toString')).toBeNull();
  });
});

describe('carrier B status table', () => {
  it('covers exactly the status ids carrier B reports', () => {
    expect(Object.keys(carrierBStates.outbound).map(Number).sort()).toEqual([...carrierBStatusIds].sort());
    expect(expectedB.map(([id]) => id).sort()).toEqual([...carrierBStatusIds].sort());
  });

  it.each(expectedB)('%i → %s (outbound), %s (with return_part_package)', (id, outbound, partial) => {
    expect(carrierBState(id, false)).toBe(outbound);
    expect(carrierBState(id, true)).toBe(partial);
  });

  it('puts only the return codes of a partially delivered parcel on the return leg', () => {
    expect(carrierBStatusIds.filter((id) => carrierBLeg(id, true) === 'return').sort()).toEqual([11, 20, 21]);
    expect(carrierBStatusIds.filter((id) => carrierBLeg(id, false) === 'return')).toEqual([]);
    expect(carrierBState(77, false)).toBeNull();
  });
});
