-- migrate:up
-- The relay claims queued events for a while (claimed_until) in a statement of its own and matches
-- them to flows outside any transaction (domain/events/event-queue.ts), so no shop's conditions hold
-- a transaction open. An event whose matching keeps failing is set aside with its reason instead of
-- coming back first forever; an operator queues it again once the cause is fixed.
ALTER TABLE event_queue
  ADD COLUMN claimed_until timestamptz,
  ADD COLUMN failures integer NOT NULL DEFAULT 0;

CREATE TABLE events_set_aside (
  event_id text PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  shop_id uuid NOT NULL,
  created_at timestamptz NOT NULL,
  failures integer NOT NULL,
  reason text NOT NULL,
  set_aside_at timestamptz NOT NULL DEFAULT now()
);

-- A set-aside event is kept until it is queued again and delivered: housekeeping never purges it.
DROP POLICY housekeeping_read ON events;
DROP POLICY housekeeping_purge ON events;
CREATE POLICY housekeeping_read ON events FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id)
         AND NOT EXISTS (SELECT 1 FROM events_set_aside a WHERE a.event_id = events.id)
         AND NOT delivery_needs_event(events.id));
CREATE POLICY housekeeping_purge ON events FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id)
         AND NOT EXISTS (SELECT 1 FROM events_set_aside a WHERE a.event_id = events.id)
         AND NOT delivery_needs_event(events.id));

-- migrate:down
DROP POLICY housekeeping_read ON events;
DROP POLICY housekeeping_purge ON events;
CREATE POLICY housekeeping_read ON events FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id) AND NOT delivery_needs_event(events.id));
CREATE POLICY housekeeping_purge ON events FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id) AND NOT delivery_needs_event(events.id));
DROP TABLE events_set_aside;
ALTER TABLE event_queue DROP COLUMN claimed_until, DROP COLUMN failures;
