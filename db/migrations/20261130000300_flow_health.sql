-- migrate:up
-- A flow's health at a glance (issue 32): each closed hour of its attempts summed once, so the flow's
-- chart and the flows list's sparklines read at most 168 small rows a flow, not the attempts. Summed in
-- five-minute steps by the housekeeping schedule and by whoever reads health (domain/flows/flow-health.ts),
-- never on the delivery path: an attempt costs what it cost before. Test-runs are left out.
CREATE TABLE flow_health_hours (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  flow_id uuid NOT NULL REFERENCES flows (id) ON DELETE CASCADE,
  hour timestamptz NOT NULL,
  -- Deliveries with an attempt in the hour (one retried over several hours counts in each).
  deliveries integer NOT NULL,
  attempts integer NOT NULL,
  succeeded integer NOT NULL,
  -- Attempts per fixed latency bucket (flow-health.ts LATENCY_BOUNDS_MS): percentiles without the attempts.
  latency_buckets integer[] NOT NULL,
  last_failure_at timestamptz,
  last_failure_status integer,
  last_failure_error text,
  PRIMARY KEY (flow_id, hour)
);
-- The flows list reads a shop's last 24 hours; the rollup drops the shop's rows past 7 days.
CREATE INDEX flow_health_hours_shop_idx ON flow_health_hours (shop_id, hour);

-- Up to which hour (exclusive) a shop's attempts are summed: later ones are read from the attempts.
CREATE TABLE flow_health_rollups (
  shop_id uuid PRIMARY KEY REFERENCES shops (id) ON DELETE CASCADE,
  rolled_up_to timestamptz NOT NULL
);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY['flow_health_hours', 'flow_health_rollups']::regclass[]) AS shop_table;

-- The housekeeping schedule keeps the sums of every shop whose flows are on current, every five
-- minutes (activities/housekeeping): it lists those shops, nothing more of their flows is used.
CREATE POLICY housekeeping_read ON flows FOR SELECT USING (current_setting('app.housekeeping', true) = 'on');

-- Shops of an older version start their sums now: a first reader would otherwise sum a week of
-- attempts at once (about a minute at 10 million). Their chart fills from the upgrade on.
INSERT INTO flow_health_rollups (shop_id, rolled_up_to)
SELECT id, date_bin('5 minutes', now(), timestamptz 'epoch') FROM shops;

-- migrate:down
DROP POLICY housekeeping_read ON flows;
DROP TABLE flow_health_rollups, flow_health_hours;
