-- migrate:up
-- Signing secrets are kept sealed (AES-256-GCM under the settings' SECRETS_KEY, the flow id as
-- associated data; domain/sealed-secrets.ts): a copy of the database or a backup no longer signs
-- anyone's webhooks. The key is not the database's to know, so rows written before this migration
-- are sealed by the bootstrap right after the migrations (db/seal-signing-secrets.ts), which then
-- validates webhook_signing_secrets_sealed: from then on no plain secret can remain or be written.
ALTER TABLE webhook_signing_secrets DROP CONSTRAINT webhook_signing_secrets_pkey;
ALTER TABLE webhook_signing_secrets
  ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  ADD COLUMN sealed_secret bytea,
  ALTER COLUMN secret DROP NOT NULL;
CREATE INDEX webhook_signing_secrets_flow_idx ON webhook_signing_secrets (flow_id, created_at);
-- Enforced for every row written from now on; checked for the older ones once they are sealed.
ALTER TABLE webhook_signing_secrets
  ADD CONSTRAINT webhook_signing_secrets_sealed CHECK (secret IS NULL AND sealed_secret IS NOT NULL) NOT VALID;

-- migrate:down
-- The key is not here either: sealed secrets cannot be turned back into plain ones, so they go
-- (their flows need a rotation to sign again).
DELETE FROM webhook_signing_secrets WHERE secret IS NULL;
DROP INDEX webhook_signing_secrets_flow_idx;
ALTER TABLE webhook_signing_secrets
  DROP CONSTRAINT webhook_signing_secrets_sealed,
  DROP COLUMN sealed_secret,
  DROP COLUMN id,
  ALTER COLUMN secret SET NOT NULL,
  ADD PRIMARY KEY (flow_id, secret);
