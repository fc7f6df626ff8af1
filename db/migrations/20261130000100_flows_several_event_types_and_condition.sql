-- migrate:up
-- A flow's Trigger block listens to a list of event types (one address, one secret for all of
-- them; issue 32), and an optional Condition block filters the events before any delivery starts
-- (domain/flows/flow-conditions.ts; null: every event of the types goes). One-type flows become
-- lists of one.
ALTER TABLE flows ADD COLUMN event_types text[];
UPDATE flows SET event_types = ARRAY[event_type];
ALTER TABLE flows
  ALTER COLUMN event_types SET NOT NULL,
  ADD COLUMN condition jsonb,
  DROP CONSTRAINT flows_check,
  ADD CONSTRAINT flows_event_types_check CHECK (cardinality(event_types) BETWEEN 1 AND 30),
  ADD CONSTRAINT flows_message_page_check
    CHECK (page_id IS NOT NULL OR array_to_string(event_types, ' ') NOT LIKE '%message.%');

CREATE OR REPLACE FUNCTION listening_flows(p_event_type text) RETURNS TABLE (id uuid)
LANGUAGE sql STABLE
AS $$ SELECT f.id FROM flows f WHERE f.state = 'on' AND p_event_type = ANY (f.event_types) $$;

-- A shop has at most 50 flows: its flows that are on are few enough to test each one's list.
DROP INDEX flows_matching_idx;
CREATE INDEX flows_matching_idx ON flows (shop_id) WHERE state = 'on';
ALTER TABLE flows DROP COLUMN event_type;

-- migrate:down
ALTER TABLE flows ADD COLUMN event_type text;
UPDATE flows SET event_type = event_types[1];
ALTER TABLE flows ALTER COLUMN event_type SET NOT NULL;
DROP INDEX flows_matching_idx;
CREATE INDEX flows_matching_idx ON flows (shop_id, event_type) WHERE state = 'on';
CREATE OR REPLACE FUNCTION listening_flows(p_event_type text) RETURNS TABLE (id uuid)
LANGUAGE sql STABLE
AS $$ SELECT f.id FROM flows f WHERE f.state = 'on' AND f.event_type = p_event_type $$;
ALTER TABLE flows
  DROP CONSTRAINT flows_message_page_check,
  DROP CONSTRAINT flows_event_types_check,
  DROP COLUMN condition,
  DROP COLUMN event_types,
  ADD CONSTRAINT flows_check CHECK (event_type NOT LIKE 'message.%' OR page_id IS NOT NULL);
