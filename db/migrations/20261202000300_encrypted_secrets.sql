-- migrate:up
-- "Seal" names one thing in Shopflow: the HMAC over a workflow's input (domain/kernel/seals.ts).
-- Secrets at rest are encrypted (domain/kernel/encrypted-secrets.ts), and their columns say so.
ALTER TABLE carrier_connections RENAME COLUMN sealed_credentials TO encrypted_credentials;
ALTER TABLE chat_page_links RENAME COLUMN sealed_access_token TO encrypted_access_token;
ALTER TABLE webhook_signing_secrets RENAME COLUMN sealed_secret TO encrypted_secret;
ALTER TABLE webhook_signing_secrets RENAME CONSTRAINT webhook_signing_secrets_sealed TO webhook_signing_secrets_encrypted;

-- migrate:down
ALTER TABLE webhook_signing_secrets RENAME CONSTRAINT webhook_signing_secrets_encrypted TO webhook_signing_secrets_sealed;
ALTER TABLE webhook_signing_secrets RENAME COLUMN encrypted_secret TO sealed_secret;
ALTER TABLE chat_page_links RENAME COLUMN encrypted_access_token TO sealed_access_token;
ALTER TABLE carrier_connections RENAME COLUMN encrypted_credentials TO sealed_credentials;
