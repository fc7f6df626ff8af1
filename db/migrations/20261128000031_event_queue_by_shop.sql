-- migrate:up
-- The relay claims a share of each batch per shop (domain/events/event-queue.ts), so one shop's
-- backlog does not hold the others' events back. It finds the shops with queued events and each
-- shop's oldest events through this index, which replaces the one by creation time alone.
CREATE INDEX event_queue_shop_order_idx ON event_queue (shop_id, created_at);
DROP INDEX event_queue_order_idx;

-- migrate:down
CREATE INDEX event_queue_order_idx ON event_queue (created_at);
DROP INDEX event_queue_shop_order_idx;
