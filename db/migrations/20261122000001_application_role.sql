-- migrate:up
-- The role the API, the worker and the relay connect as: never superuser, never BYPASSRLS,
-- so row-level security applies to every query they make. Roles are cluster-wide, hence the guard.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'shopflow_app') THEN
    CREATE ROLE shopflow_app LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE NOINHERIT;
  END IF;
END
$$;
ALTER ROLE shopflow_app NOSUPERUSER NOBYPASSRLS;

GRANT USAGE ON SCHEMA public TO shopflow_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO shopflow_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO shopflow_app;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT EXECUTE ON FUNCTIONS TO shopflow_app;

CREATE EXTENSION IF NOT EXISTS pgcrypto;
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- migrate:down
REVOKE ALL ON SCHEMA public FROM shopflow_app;
