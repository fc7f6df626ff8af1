/**
 * The kernel: what every module uses and that owns no table. Tenancy (`withShop`, `Tx`), the problem
 * codes, synchronised lists (cursors, `syncedPage`, SQL fragments), ids, canonical JSON, Vietnamese
 * phone numbers, encrypted secrets, the per-shop caps, token buckets, and the zod field schemas wire shapes are built from (`wire-fields.ts`).
 * It imports no other module. Other modules import only this file.
 */

export { canonicalJson } from './canonical-json.js';
export { isUuid } from './ids.js';
export {
  DEFAULT_LIMIT,
  DEFAULT_RECOMPUTE_CEILING_SECONDS,
  encodeCursor,
  escapeLike,
  MAX_LIMIT,
  MAX_RECOMPUTE_CEILING_SECONDS,
  SAFETY_MARGIN_SECONDS,
  SYNC_OVERLAP_MINUTES,
  syncedPage,
  type CursorBinding,
  type Fragment,
  type ListQuery,
  type Named,
  type Page,
} from './listing.js';
export { normalizePhone } from './phones.js';
export { describeAbsent, Problem, PROBLEMS, refuseAbsent, type AbsentReference, type FieldError, type ProblemCode } from './problems.js';
export { PROBLEM_GUIDANCE, type ProblemGuidance } from './problem-guidance.js';
export { decryptSecret, encryptSecret } from './encrypted-secrets.js';
export { hasValidSeal, seal, type Sealed } from './seals.js';
export { refuseAtCap, SHOP_CAPS, type ShopCap } from './shop-caps.js';
export { refuseInUse, refuseTakenName } from './list-entries.js';
export { enterShop, withShop, type Tx } from './tenancy.js';
export { allAnswered, pipelined } from './round-trips.js';
export { TokenBuckets } from './token-buckets.js';
export { asHousekeeping, purgeOlderThan } from './housekeeping.js';
export * from './wire-fields.js';
