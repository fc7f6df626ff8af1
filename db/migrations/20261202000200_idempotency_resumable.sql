-- migrate:up
-- A creation that goes on after its request answered 503 (a shipment push the carrier has not
-- answered yet) leaves its key `resumable`, naming what goes on (`resume_ref`, the shipment's id):
-- the same request with the same key then answers what became of it (api/plugins/idempotency.ts).
ALTER TABLE idempotency_keys ADD COLUMN resume_ref text;
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('running', 'done', 'resumable'));

-- migrate:down
DELETE FROM idempotency_keys WHERE state = 'resumable';
ALTER TABLE idempotency_keys DROP CONSTRAINT idempotency_keys_state_check;
ALTER TABLE idempotency_keys ADD CONSTRAINT idempotency_keys_state_check CHECK (state IN ('running', 'done'));
ALTER TABLE idempotency_keys DROP COLUMN resume_ref;
