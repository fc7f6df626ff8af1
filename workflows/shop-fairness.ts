import type { Priority } from '@temporalio/common';

/**
 * The priority every workflow a shop starts carries (deliveries, their retries, resends and test-runs,
 * recovery batches and their children, shipment pushes, cancels and trackings): the shop's id as its
 * fairness key. Its activities and children inherit it. With matching.enableFairness on (the dynamic
 * configuration), a task queue's backlog is dispatched by key in turn: each shop its share.
 */
export function shopFairness(shopId: string): Priority {
  return { fairnessKey: shopId };
}
