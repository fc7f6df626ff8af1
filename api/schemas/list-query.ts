import { z } from 'zod';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../domain/kernel/index.js';

/** `limit`, `cursor`, `updatedSince`: the parameters of every synchronised list. */
export const syncListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe(`1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}`),
  cursor: z.string().min(1).max(2048).optional().describe('The nextCursor of the previous page, with every other parameter unchanged'),
  updatedSince: z.iso
    .datetime({ offset: true })
    .transform((value) => new Date(value))
    .optional()
    .describe('Inclusive; only records older than the safety delay are returned'),
});

/** …plus `includeDeleted`, for orders, products and customers. */
export const softDeleteListQuery = syncListQuery.extend({
  includeDeleted: z.enum(['true', 'false']).default('false').transform((value) => value === 'true').describe('Also return soft-deleted records'),
});

/** `{ data, nextCursor }`. */
export function pageOf<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), nextCursor: z.string().nullable() });
}
