-- migrate:up
-- The secrets an HTTP-send block signs with. A rotation adds a row and gives the old one an
-- expiry 24 h ahead; until then both sign. Read by the worker at send time, so secrets never
-- sit in a workflow's history.
CREATE TABLE webhook_signing_secrets (
  flow_id uuid NOT NULL,
  secret text NOT NULL CHECK (secret ~ '^whsec_[A-Za-z0-9+/]{43}=$'),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  PRIMARY KEY (flow_id, secret)
);

-- migrate:down
DROP TABLE webhook_signing_secrets;
