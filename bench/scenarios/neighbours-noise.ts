import { randomUUID } from 'node:crypto';
import type { FlowCondition } from '../../domain/flows/index.js';

// What shop A of the neighbours scenario (neighbours.ts) sends through the relay's matching.

/** Three rules on every keyword of every variant and seven on every price: 137,216 values, within the save check's 150,000. */
export const COSTLIEST: FlowCondition = {
  match: 'any',
  rules: [
    ...[0, 1, 2].map((n) => ({
      path: 'data.variants.keywords',
      operator: 'in' as const,
      value: Array.from({ length: 50 }, (_, k) => `nope-${n}-${k}`),
    })),
    ...Array.from({ length: 7 }, (_, n) => ({
      path: 'data.variants.price',
      operator: 'in' as const,
      value: Array.from({ length: 50 }, (_, k) => n * 50 + k + 1),
    })),
  ],
};

/** A product of 2,048 variants of 20 keywords each, none of which any condition above names. */
export function bigProduct(): Record<string, unknown> {
  return {
    id: randomUUID(),
    name: 'Áo thun 2048',
    variants: Array.from({ length: 2_048 }, (_, index) => ({
      id: randomUUID(),
      code: `V-${index}`,
      price: String(100_000 + index),
      keywords: Array.from({ length: 20 }, (_, k) => `k${index}-${k}`),
    })),
  };
}
