-- migrate:up
-- Vietnamese administrative units of both boundary systems: `old` (province, district, ward; before
-- 1 July 2025) and `new` (province, ward). Platform reference data shared by every shop, so no
-- row-level security. The rows are not here: the bootstrap loads them with db/geography.ts, with ids
-- derived from (system, code) so that they are the same on every installation.
CREATE TABLE geo_units (
  id uuid PRIMARY KEY,
  system text NOT NULL CHECK (system IN ('old', 'new')),
  level smallint NOT NULL CHECK (level IN (1, 2, 3) AND (system = 'old' OR level <> 2)),
  parent_id uuid REFERENCES geo_units (id),
  -- The official code (GSO): 2 digits for a province, 3 for a district, 5 for a ward.
  code text NOT NULL CHECK (code ~ '^[0-9]{2,5}$'),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  -- Lower-case, accent-free (đ → d) name with punctuation as single spaces, for search.
  search_name text NOT NULL,
  CHECK ((level = 1) = (parent_id IS NULL)),
  UNIQUE (system, code)
);
-- One tier of the tree, already in the order GET /geo/units returns it.
CREATE INDEX geo_units_browse_idx ON geo_units (system, parent_id, search_name, name);

-- The application only reads it (the default privileges of the first migration grant SELECT);
-- the bootstrap writes it as the owner.
REVOKE INSERT, UPDATE, DELETE ON geo_units FROM shopflow_app;

-- migrate:down
DROP TABLE geo_units;
