#!/bin/sh
# Temporal's own PostgreSQL role (docker-compose.yml mounts this folder at /docker-entrypoint-initdb.d):
# it owns its two databases and may do nothing else: neither superuser (which bypasses row-level
# security) nor able to create databases or roles. No other role may connect to its databases, and
# Shopflow's database takes connections only from the roles its migrations grant.
#
# The postgres image runs this once, when it initialises an empty volume. On a volume made before
# this script existed, run it once by hand (it is idempotent, and hands Temporal's existing
# databases and tables over to the role):
#   docker compose exec postgres sh /docker-entrypoint-initdb.d/10-temporal-role.sh
set -e
: "${TEMPORAL_DB_PASSWORD:?set TEMPORAL_DB_PASSWORD}"

# The password goes in as a psql variable (:'password' quotes it), never into the SQL text.
psql --no-psqlrc -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname postgres \
  -v password="$TEMPORAL_DB_PASSWORD" -v shopflow="${POSTGRES_DB:-$POSTGRES_USER}" <<'SQL'
SELECT 'CREATE ROLE temporal' WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'temporal') \gexec
ALTER ROLE temporal LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS PASSWORD :'password';
SELECT format('CREATE DATABASE %I OWNER temporal', name) FROM unnest(ARRAY['temporal', 'temporal_visibility']) AS name
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = name) \gexec
ALTER DATABASE temporal OWNER TO temporal;
ALTER DATABASE temporal_visibility OWNER TO temporal;
REVOKE ALL ON DATABASE temporal, temporal_visibility FROM PUBLIC;
-- Every role may connect to a new database until this: Temporal's role is kept out of Shopflow's.
REVOKE CONNECT, TEMPORARY ON DATABASE :"shopflow", postgres FROM PUBLIC;
SQL

for database in temporal temporal_visibility; do
  psql --no-psqlrc -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$database" <<'SQL'
-- Temporal's visibility schema asks for btree_gin; made here so that its role needs no more rights.
CREATE EXTENSION IF NOT EXISTS btree_gin;
-- Tables and functions an earlier auto-setup made as the superuser become the role's own.
DO $$
DECLARE
  statement text;
BEGIN
  FOR statement IN
    SELECT format('ALTER TABLE %s OWNER TO temporal', c.oid::regclass) FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'v', 'm') AND c.relowner <> 'temporal'::regrole
    UNION ALL
    SELECT format('ALTER SEQUENCE %s OWNER TO temporal', c.oid::regclass) FROM pg_class c
    WHERE c.relnamespace = 'public'::regnamespace AND c.relkind = 'S' AND c.relowner <> 'temporal'::regrole
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = c.oid AND d.deptype IN ('a', 'i'))
    UNION ALL
    SELECT format('ALTER ROUTINE %s OWNER TO temporal', p.oid::regprocedure) FROM pg_proc p
    WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> 'temporal'::regrole
      AND NOT EXISTS (SELECT FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
  LOOP
    EXECUTE statement;
  END LOOP;
END
$$;
SQL
done
