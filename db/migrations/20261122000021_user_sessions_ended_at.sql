-- migrate:up
-- When a person's sessions last ended everywhere (a lock, a new password): a lock set from one shop
-- must also end the sessions of the person's other shops, which that shop's row-level security hides.
ALTER TABLE users ADD COLUMN sessions_ended_at timestamptz;

-- migrate:down
ALTER TABLE users DROP COLUMN sessions_ended_at;
