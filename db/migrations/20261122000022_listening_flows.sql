-- migrate:up
-- The flows module publishes which of the current shop's flows are on for an event type: the events
-- module, which writes the outbox and must not depend on flows (flows depend on events), notes with
-- it the runs an edit without a change of `data` skips (flow.run_skipped in the shop log). Runs with
-- the caller's rights, so row-level security keeps it to the transaction's shop.
CREATE FUNCTION listening_flows(p_event_type text) RETURNS TABLE (id uuid)
LANGUAGE sql STABLE
AS $$ SELECT f.id FROM flows f WHERE f.state = 'on' AND f.event_type = p_event_type $$;

-- migrate:down
DROP FUNCTION listening_flows(text);
