-- migrate:up
-- Housekeeping purges outbox events and deliveries too (issue 26: both grew forever). As for delivery
-- attempts (20261124000001_housekeeping.sql), a transaction that declares itself housekeeping sees
-- and deletes, across shops, only rows past their use; the retention settings (at least a day)
-- narrow that further in the DELETE itself.

-- A delivery is visible to housekeeping once a day old (the events' policy asks, through it, whether
-- an event is still needed), and may go once also untouched for a day (a resend moves updated_at).
CREATE POLICY housekeeping_read ON deliveries FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day');
CREATE POLICY housekeeping_purge ON deliveries FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND updated_at < now() - interval '1 day');
CREATE INDEX deliveries_created_idx ON deliveries (created_at);

-- Published by flows: whether a delivery may still send the event `p_event_id`, so the event must
-- stay: one in flight (it may yet fail), or one that failed (an admin may resend it, which renders
-- the stored event again). Test-runs are never resent. The events module cannot import flows (flows
-- depend on events), as with listening_flows(). Caller's rights: row-level security applies.
CREATE FUNCTION delivery_needs_event(p_event_id text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
  SELECT EXISTS (SELECT 1 FROM deliveries d
                 WHERE d.event_id = p_event_id AND d.status IN ('delivering', 'retrying', 'failed') AND NOT d.test_run)
$$;
CREATE INDEX deliveries_open_event_idx ON deliveries (event_id)
  WHERE status IN ('delivering', 'retrying', 'failed') AND NOT test_run;

-- An event is past its use once a day old, off the relay's queue (its deliveries have started) and
-- needed by no delivery. Housekeeping sees no other event of any shop.
CREATE POLICY housekeeping_read ON events FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id) AND NOT delivery_needs_event(events.id));
CREATE POLICY housekeeping_purge ON events FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day'
         AND NOT EXISTS (SELECT 1 FROM event_queue q WHERE q.event_id = events.id) AND NOT delivery_needs_event(events.id));
CREATE INDEX events_created_idx ON events (created_at);

-- migrate:down
DROP INDEX events_created_idx, deliveries_open_event_idx, deliveries_created_idx;
DROP POLICY housekeeping_purge ON events;
DROP POLICY housekeeping_read ON events;
DROP FUNCTION delivery_needs_event(text);
DROP POLICY housekeeping_purge ON deliveries;
DROP POLICY housekeeping_read ON deliveries;
