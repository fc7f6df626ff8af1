-- migrate:up
-- One row per attempt: the send activity records its attempt inline and, when that record is late
-- or lost, the workflow records it again; the same attempt (delivery, time of the POST) is kept once.
DELETE FROM delivery_attempts a USING delivery_attempts b
  WHERE a.delivery_id = b.delivery_id AND a.attempted_at = b.attempted_at AND a.id > b.id;
DROP INDEX delivery_attempts_delivery_idx;
CREATE UNIQUE INDEX delivery_attempts_once ON delivery_attempts (delivery_id, attempted_at);

-- migrate:down
DROP INDEX delivery_attempts_once;
CREATE INDEX delivery_attempts_delivery_idx ON delivery_attempts (delivery_id, attempted_at);
