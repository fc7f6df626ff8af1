-- migrate:up
-- Automation flows: a Trigger block (event type, chat page for message events) wired to one
-- HTTP-send block (https URL, its signing secrets). The flow's account is the permission set and
-- pages chosen when it was saved.
CREATE TABLE flows (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  event_type text NOT NULL,
  page_id uuid REFERENCES pages (id),
  url text NOT NULL CHECK (url ~ '^https://'),
  http_enabled boolean NOT NULL DEFAULT true,
  state text NOT NULL DEFAULT 'draft' CHECK (state IN ('draft', 'on', 'off')),
  permissions text[] NOT NULL DEFAULT '{}',
  page_ids uuid[] NOT NULL DEFAULT '{}',
  -- Events created before this moment are not sent to the flow.
  switched_on_at timestamptz,
  saved_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (event_type NOT LIKE 'message.%' OR page_id IS NOT NULL)
);
CREATE INDEX flows_matching_idx ON flows (shop_id, event_type) WHERE state = 'on';

ALTER TABLE webhook_signing_secrets ADD COLUMN shop_id uuid REFERENCES shops (id) ON DELETE CASCADE;
DELETE FROM webhook_signing_secrets WHERE flow_id NOT IN (SELECT id FROM flows);
UPDATE webhook_signing_secrets s SET shop_id = f.shop_id FROM flows f WHERE f.id = s.flow_id;
ALTER TABLE webhook_signing_secrets
  ALTER COLUMN shop_id SET NOT NULL,
  ADD FOREIGN KEY (flow_id) REFERENCES flows (id) ON DELETE CASCADE;

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY['flows', 'webhook_signing_secrets']::regclass[]) AS shop_table;

-- The relay's work list: which event of which shop still waits for its deliveries to start. It
-- holds ids only; the relay reads the event and the flows under the event's shop, through RLS.
CREATE TABLE event_queue (
  event_id text PRIMARY KEY REFERENCES events (id) ON DELETE CASCADE,
  shop_id uuid NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX event_queue_order_idx ON event_queue (created_at);

CREATE FUNCTION enqueue_event() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  INSERT INTO event_queue (event_id, shop_id, created_at) VALUES (NEW.id, NEW.shop_id, NEW.created_at);
  PERFORM pg_notify('shopflow_events', '');
  RETURN NEW;
END
$$;
CREATE TRIGGER events_enqueue AFTER INSERT ON events FOR EACH ROW EXECUTE FUNCTION enqueue_event();

ALTER TABLE events DROP COLUMN relayed_at;

-- migrate:down
ALTER TABLE events ADD COLUMN relayed_at timestamptz;
DROP TRIGGER events_enqueue ON events;
DROP FUNCTION enqueue_event();
DROP TABLE event_queue;
ALTER TABLE webhook_signing_secrets DROP COLUMN shop_id;
DROP TABLE flows;
