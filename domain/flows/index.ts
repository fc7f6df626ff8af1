/**
 * Flows: automation flows with their signing secrets, deliveries and their attempts (flows,
 * webhook_signing_secrets, deliveries, delivery_attempts, delivery_recoveries; listening_flows() for the outbox), sealed
 * delivery requests and the webhook delivery rules. Other modules import only this file.
 */

export {
  ATTEMPT_TIMEOUT_MS,
  CONNECT_TIMEOUT_MS,
  DeliveryAttempt,
  deliveryHistory,
  markDeliveryFailed,
  mayReadContent,
  noteNextAttempt,
  purgeOldAttempts,
  purgeOldDeliveries,
  recordAttempt,
  RESPONSE_EXCERPT_BYTES,
  retryAfterSeconds,
  retryingDeliveryWorkflow,
  shownAttempt,
  ShownDeliveryAttempt,
  signedHeaders,
  verdictForStatus,
  type AttemptRecord,
  type AttemptVerdict,
  type DeliveryRef,
  type HistoryFilter,
} from './deliveries.js';
export {
  eventMatch,
  matchEvent,
  recordSkippedRuns,
  requestsForEvent,
  resendRequest,
  sealDeliveryRequest,
  testRunRequest,
  type DeliveryRequest,
  type EventMatch,
  type TestRun,
  type TestRunDraft,
} from './delivery-requests.js';
export { conditionFieldsOf, operatorsFor, type ConditionField, type ConditionFieldKind } from './condition-fields.js';
export { CONDITION_BUDGET, CONDITION_LIMITS, ConditionBudgetExceeded, flowConditionSchema, type FlowCondition } from './flow-conditions.js';
export {
  checkRecoverySince,
  countFailedDeliveries,
  logRecoveryStarted,
  markRecoveriesEnded,
  nextFailedDeliveries,
  openRecoveries,
  RECOVERY_PACE,
  RECOVERY_SHARE,
  recordRecoveryStarted,
  latestRecovery,
  recoveryAdmission,
  type OpenRecovery,
  type RecoveryCursor,
  type RecoveryWindow,
} from './delivery-recovery.js';
export { EVENT_EXAMPLES, EXAMPLE_SHOP } from './event-samples.js';
export { shopOfFlow } from './flow-lookup.js';
export { FlowHealth, flowHealth, FlowSparkline, flowSparklines, rollUpFlowHealth, shopsWithFlows } from './flow-health.js';
export { createFlow, deleteFlow, getFlow, listFlows, setFlowState, switchOffHttpSend, updateFlow, type FlowInput } from './flows.js';
export { encryptPlainSigningSecrets, signingSecretsAwaitEncryption } from './encrypt-signing-secrets.js';
export { liveSigningSecrets, rotateSigningSecret, SECRET_OVERLAP_HOURS } from './webhook-secrets.js';
