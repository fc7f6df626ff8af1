import { z } from 'zod';
import {
  DEFAULT_LIMIT,
  DEFAULT_RECOMPUTE_CEILING_SECONDS,
  MAX_LIMIT,
  MAX_RECOMPUTE_CEILING_SECONDS,
  SAFETY_MARGIN_SECONDS,
  TimestampInput,
} from '../../domain/kernel/index.js';

/** Every cursor encodeCursor (domain/kernel/listing.ts) makes: a base64url payload, a dot, a 22-character base64url signature. */
export const CURSOR_PATTERN = '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{22}$';

const minutesAndSeconds = (seconds: number) =>
  [seconds >= 60 ? `${Math.floor(seconds / 60)} min` : '', seconds % 60 ? `${seconds % 60} s` : ''].filter(Boolean).join(' ');

/** The `updatedSince` safety delay in words, from the constants the lists apply (spec, Limits). */
export const SAFETY_DELAY = `the shop's recompute ceiling plus ${SAFETY_MARGIN_SECONDS} s: ${minutesAndSeconds(
  DEFAULT_RECOMPUTE_CEILING_SECONDS + SAFETY_MARGIN_SECONDS,
)} by default, never more than ${minutesAndSeconds(MAX_RECOMPUTE_CEILING_SECONDS + SAFETY_MARGIN_SECONDS)}`;

/** `limit`, `cursor`, `updatedSince`: the parameters of every synchronised list. */
export const syncListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(MAX_LIMIT).default(DEFAULT_LIMIT).describe(`1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}`),
  cursor: z
    .string()
    // In the document only: any other string, empty or however long, is answered 400 invalid-cursor
    // by the list itself (spec), not validation-failed.
    .meta({ pattern: CURSOR_PATTERN })
    .optional()
    .describe('The nextCursor of the previous page, with every other parameter unchanged; another value is 400 invalid-cursor'),
  updatedSince: TimestampInput.transform((value) => new Date(value))
    .optional()
    .describe(`Inclusive: records changed at or after this time, and only those older than the safety delay (${SAFETY_DELAY})`),
});

/** …plus `includeDeleted`, for orders, products and customers. */
export const softDeleteListQuery = syncListQuery.extend({
  includeDeleted: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true')
    .describe('Also return soft-deleted records'),
});

/** `{ data, nextCursor }`. */
export function pageOf<T extends z.ZodType>(row: T) {
  return z.object({ data: z.array(row), nextCursor: z.string().nullable() });
}
