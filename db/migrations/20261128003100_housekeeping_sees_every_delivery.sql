-- migrate:up
-- Housekeeping reads every delivery (it still deletes only those a day old and untouched for a day):
-- delivery_needs_event() runs with the caller's rights, and a delivery the relay started late (less
-- than a day ago) for an event past its retention must still keep that event for a resend.
ALTER POLICY housekeeping_read ON deliveries USING (current_setting('app.housekeeping', true) = 'on');

-- migrate:down
ALTER POLICY housekeeping_read ON deliveries
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '1 day');
