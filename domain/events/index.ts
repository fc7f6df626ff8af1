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
  eventDataOf,
  eventQueueState,
  MATCHING_ATTEMPTS,
  recordMatchingFailure,
  releaseQueuedEvents,
  requeueSetAsideEvents,
  setAsideEvents,
  storedEvent,
  type QueuedEvent,
  type RelayedEvent,
  type SetAsideEvent,
} from './event-queue.js';
export { purgeOldEvents } from './event-purge.js';
export { diffSnapshots, newEventId, recordUpdate, writeEvent } from './outbox.js';
