-- migrate:up
-- Shops and everything that decides who may call the API for them. Every shop-owned table is under
-- row-level security keyed on the transaction setting app.shop_id; the application role sees
-- nothing of a shop unless a transaction has set it.

CREATE FUNCTION current_shop_id() RETURNS uuid
LANGUAGE sql STABLE PARALLEL SAFE
AS $$ SELECT nullif(current_setting('app.shop_id', true), '')::uuid $$;

-- Row-level security for a shop-owned table: enabled, forced (the owner too), current shop only.
CREATE FUNCTION enable_shop_isolation(shop_table regclass) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
  EXECUTE format('ALTER TABLE %s ENABLE ROW LEVEL SECURITY', shop_table);
  EXECUTE format('ALTER TABLE %s FORCE ROW LEVEL SECURITY', shop_table);
  EXECUTE format('CREATE POLICY shop_isolation ON %s USING (shop_id = current_shop_id()) WITH CHECK (shop_id = current_shop_id())', shop_table);
END
$$;

CREATE TABLE shops (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  plan text NOT NULL DEFAULT 'active' CHECK (plan IN ('active', 'expired')),
  suspended boolean NOT NULL DEFAULT false,
  automation_enabled boolean NOT NULL DEFAULT true,
  recompute_ceiling_seconds integer NOT NULL DEFAULT 120 CHECK (recompute_ceiling_seconds BETWEEN 0 AND 600),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- People are platform accounts; a shop sees those who are (or were) its members.
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL CHECK (email = lower(email) AND position('@' IN email) > 1),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  password_hash text,
  locked boolean NOT NULL DEFAULT false,
  password_changed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (email);

CREATE TABLE roles (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  permissions text[] NOT NULL DEFAULT '{}',
  -- Members of such a role see only the orders they handle (order assignment uses it).
  sees_only_own_orders boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (shop_id, name)
);

CREATE TABLE shop_members (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  user_id uuid NOT NULL REFERENCES users (id),
  role_id uuid NOT NULL REFERENCES roles (id),
  status text NOT NULL DEFAULT 'working' CHECK (status IN ('working', 'disabled', 'left')),
  joined_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (shop_id, user_id)
);
CREATE INDEX shop_members_user_idx ON shop_members (user_id);

-- Chat pages connected to the shop (the chat issue adds their conversations).
CREATE TABLE pages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL,
  platform text NOT NULL DEFAULT 'facebook',
  connected boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE applications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  permissions text[] NOT NULL DEFAULT '{}',
  page_ids uuid[] NOT NULL DEFAULT '{}',
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX applications_shop_idx ON applications (shop_id);

CREATE TABLE api_keys (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  application_id uuid NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
  key_hash text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_by uuid REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz,
  revoked_by uuid REFERENCES users (id)
);
CREATE INDEX api_keys_application_idx ON api_keys (application_id);

CREATE TABLE shop_log (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  actor_user_id uuid REFERENCES users (id),
  actor_application_id uuid REFERENCES applications (id) ON DELETE SET NULL,
  action text NOT NULL,
  subject_type text,
  subject_id text,
  details jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX shop_log_shop_idx ON shop_log (shop_id, created_at);

-- Row-level security: the current shop only.
SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY['roles', 'shop_members', 'pages', 'shop_log']::regclass[]) AS shop_table;

ALTER TABLE shops ENABLE ROW LEVEL SECURITY;
ALTER TABLE shops FORCE ROW LEVEL SECURITY;
-- Also visible to a lookup that names the shop's slug (operators' CLI, the admin app's login).
CREATE POLICY shop_isolation ON shops
  USING (id = current_shop_id() OR slug = current_setting('app.shop_slug', true))
  WITH CHECK (id = current_shop_id());

-- A key row is visible in its shop, or to whoever presents the key itself (its hash): that is how
-- a request finds its shop before app.shop_id is known. Operators' CLI names keys and applications
-- by id (app.api_key_id, app.application_id) to find their shop.
ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY shop_isolation ON api_keys
  USING (
    shop_id = current_shop_id()
    OR key_hash = current_setting('app.api_key_hash', true)
    OR id::text = current_setting('app.api_key_id', true)
  )
  WITH CHECK (shop_id = current_shop_id());

ALTER TABLE applications ENABLE ROW LEVEL SECURITY;
ALTER TABLE applications FORCE ROW LEVEL SECURITY;
CREATE POLICY shop_isolation ON applications
  USING (shop_id = current_shop_id() OR id::text = current_setting('app.application_id', true))
  WITH CHECK (shop_id = current_shop_id());

-- People: members of the current shop, or the one account whose e-mail a login presents.
ALTER TABLE users ENABLE ROW LEVEL SECURITY;
ALTER TABLE users FORCE ROW LEVEL SECURITY;
CREATE POLICY member_or_login ON users
  USING (
    EXISTS (SELECT 1 FROM shop_members m WHERE m.user_id = users.id AND m.shop_id = current_shop_id())
    OR email = current_setting('app.login_email', true)
  );
-- New accounts are created before their membership exists.
CREATE POLICY create_account ON users FOR INSERT WITH CHECK (true);

/*
 * The first query of every API request: finds the live key by its hash and returns its shop and
 * application. Runs with the caller's rights, so row-level security still applies; it sets the
 * settings it needs for this one statement only.
 */
CREATE FUNCTION authenticate_api_key(p_key_hash text)
RETURNS TABLE (
  key_id uuid,
  application_id uuid,
  application_name text,
  permissions text[],
  page_ids uuid[],
  shop_id uuid,
  shop_slug text,
  shop_name text,
  plan text,
  suspended boolean,
  automation_enabled boolean,
  recompute_ceiling_seconds integer
)
LANGUAGE plpgsql VOLATILE
AS $$
DECLARE
  found_key api_keys%ROWTYPE;
BEGIN
  PERFORM set_config('app.api_key_hash', p_key_hash, true);
  SELECT * INTO found_key FROM api_keys k
  WHERE k.key_hash = p_key_hash AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > now());
  PERFORM set_config('app.api_key_hash', '', true);
  IF NOT FOUND THEN
    RETURN;
  END IF;
  PERFORM set_config('app.shop_id', found_key.shop_id::text, true);
  RETURN QUERY
    SELECT found_key.id, a.id, a.name, a.permissions, a.page_ids, s.id, s.slug, s.name, s.plan, s.suspended,
           s.automation_enabled, s.recompute_ceiling_seconds
    FROM applications a JOIN shops s ON s.id = a.shop_id
    WHERE a.id = found_key.application_id;
END
$$;

-- migrate:down
DROP FUNCTION authenticate_api_key(text);
DROP TABLE shop_log, api_keys, applications, pages, shop_members, roles, users, shops;
DROP FUNCTION enable_shop_isolation(regclass);
DROP FUNCTION current_shop_id();
