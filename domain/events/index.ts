/**
 * Events: the transactional outbox (events, event_queue, events_set_aside), the change diff, the event catalogue and the
 * envelope. Writes happen in the caller's transaction; the relay claims the queue. Other modules
 * import only this file.
 */

export {
  envelope,
  EVENT_READ_PERMISSIONS,
  EVENT_TYPES,
  isEventType,
  needsPage,
  readableEventData,
  readableOrder,
  type EventType,
  type StoredEvent,
} from './event-catalogue.js';
export {
  CLAIM_SECONDS,
  claimQueuedEvents,
  type ClaimAllowances,
  completeQueuedEvents,
  diffSnapshots,
  eventDataOf,
  eventQueueState,
  MATCHING_ATTEMPTS,
  newEventId,
  recordMatchingFailure,
  recordUpdate,
  releaseQueuedEvents,
  requeueSetAsideEvents,
  setAsideEvents,
  storedEvent,
  type QueuedEvent,
  type RelayedEvent,
  type SetAsideEvent,
  writeEvent,
} from './outbox.js';
export { purgeOldEvents } from './event-purge.js';
