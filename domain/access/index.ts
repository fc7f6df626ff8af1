/**
 * Access: who may call the API for a shop, and how often. Owns shops, users, roles, shop_members,
 * pages (until the chat module), applications, api_keys, admin_sessions, shop_log,
 * rate_limit_counters and idempotency_keys, with the SQL functions authenticate_request and
 * hit_rate_limit (db/schema.sql shows them as they are live). Other modules import only this file.
 */

export {
  ADMIN_LANGUAGES,
  assertCsrfToken,
  chooseAdminLanguage,
  logIn,
  logOut,
  SESSION_HOURS,
  sessionOf,
  type AdminLanguage,
  type AdminSession,
} from './admin-sessions.js';
export { hashApiKey, isWellFormedApiKey, KEY_PREFIX, LEAK_PATTERN } from './api-key-format.js';
export { createKey, DEFAULT_OVERLAP_HOURS, MAX_LIVE_KEYS, MAX_OVERLAP_HOURS, revokeKey, rotateKey, type Actor } from './api-keys.js';
export { createApplication, MAX_APPLICATIONS_PER_SHOP, removeApplication, updateApplication } from './applications.js';
export { CreatorAlert, listApplications, ListedApplication, ListedKey } from './application-list.js';
export { ConcurrencyLimit } from './concurrency-limit.js';
export {
  ABANDONED_AFTER_SECONDS,
  claimIdempotencyKey,
  IDEMPOTENCY_WINDOW_HOURS,
  releaseIdempotencyKey,
  leaveResumable,
  storeIdempotentResponse,
  type IdempotencyScope,
  type StoredResponse,
} from './idempotency.js';
export {
  failedChecksPerShop,
  ShopFailedChecks,
  PASSWORD_CHECKS_AT_ONCE,
  PASSWORD_CHECKS_KNOWN_DEVICES,
  SHOP_FAILED_CHECKS,
} from './login-guards.js';
export { loginDevices, type LoginDevices } from './login-devices.js';
export { SESSION_MISSES_PER_MINUTE, SESSION_TOKEN_SHAPE, SessionMisses } from './session-misses.js';
export { isOperatorSession, isOperatorToken, OPERATOR_SESSION_HOURS, operatorSession, throttleOperatorLogin } from './operator-sessions.js';
export { assertMember, listRoles, listStaff, shopRoles, userNameOf, workingMembers } from './members.js';
export { createPage, existingPageIds, listPages, listShopPages } from './pages.js';
export { assertHolds, assertMayGrant, CHAT_PERMISSIONS, GRANTABLE_PERMISSIONS, PEOPLE_ONLY_PERMISSIONS } from './permissions.js';
export { countHit, enforceRate, RATE_LIMITS, RATE_WINDOW_SECONDS, rateLimited, rateState, type RateCounter } from './rate-limits.js';
export { purgeRequestGuards, type RequestGuardPurge } from './housekeeping.js';
export { authenticateRequest, type AuthenticatedRequest } from './request-authentication.js';
export { writeShopLog, writeShopLogs } from './shop-log.js';
export { createShop, findShop, OWNER_ROLE, shopIdentity, shopLocksPrices, shopOwning, shopSlugOf, updateShopSettings } from './shops.js';
export { addMember, findMemberByEmail, memberPermissions, updateMember, type MemberStatus } from './users.js';
