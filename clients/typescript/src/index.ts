export {
  createShopflowClient,
  type Answered,
  type ApiMethod,
  type ClientOptions,
  type ListParams,
  type ListPath,
  type RowOf,
  type ShopflowApi,
  type ShopflowClient,
} from './client.js';
export { isProblem, problemGroup, ShopflowProblem, type ProblemBody, type ProblemCode, type ProblemGroup } from './problems.js';
export { retryingFetch, type RetryOptions } from './retrying-fetch.js';
export {
  memoryMarkStore,
  sync,
  SYNC_OVERLAP_MS,
  syncKey,
  type MarkStore,
  type SyncOptions,
  type SyncResource,
  type SyncRow,
} from './sync.js';
export {
  handleOnce,
  handleWebhookOnce,
  memorySeenStore,
  verifyWebhook,
  WebhookVerificationError,
  type ClaimResult,
  type EventChanges,
  type EventOf,
  type EventType,
  type SeenStore,
  type ShopflowEvent,
  type UnknownEvent,
  type WebhookEvent,
  type WebhookHeaders,
  type WebhookIdStore,
} from './webhooks.js';
export type { WebhookReceiverOptions } from './webhook-receiver.js';
export { EVENT_TYPES, type components, type paths } from './open-api.generated.js';
