-- migrate:up
-- Housekeeping (a Temporal Schedule: workflows/housekeeping.ts) purges, as the application role,
-- rows of every shop that nothing reads any more. Row-level security keeps each transaction to one
-- shop; these policies let a transaction that declares itself housekeeping (app.housekeeping = 'on')
-- see and delete, across shops, only rows already past their use: idempotency records older than the
-- 24-hour window, admin sessions past their expiry, delivery attempts older than a day (the
-- retention setting, at least one day, narrows that further in the DELETE itself).
CREATE POLICY housekeeping_read ON idempotency_keys FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '24 hours');
CREATE POLICY housekeeping_purge ON idempotency_keys FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND created_at < now() - interval '24 hours');
CREATE POLICY housekeeping_read ON admin_sessions FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND expires_at < now());
CREATE POLICY housekeeping_purge ON admin_sessions FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND expires_at < now());
CREATE POLICY housekeeping_read ON delivery_attempts FOR SELECT
  USING (current_setting('app.housekeeping', true) = 'on' AND attempted_at < now() - interval '1 day');
CREATE POLICY housekeeping_purge ON delivery_attempts FOR DELETE
  USING (current_setting('app.housekeeping', true) = 'on' AND attempted_at < now() - interval '1 day');
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
CREATE INDEX admin_sessions_expires_idx ON admin_sessions (expires_at);
CREATE INDEX delivery_attempts_attempted_idx ON delivery_attempts (attempted_at);

-- migrate:down
DROP INDEX delivery_attempts_attempted_idx, admin_sessions_expires_idx, idempotency_keys_created_idx;
DROP POLICY housekeeping_purge ON delivery_attempts;
DROP POLICY housekeeping_read ON delivery_attempts;
DROP POLICY housekeeping_purge ON admin_sessions;
DROP POLICY housekeeping_read ON admin_sessions;
DROP POLICY housekeeping_purge ON idempotency_keys;
DROP POLICY housekeeping_read ON idempotency_keys;
