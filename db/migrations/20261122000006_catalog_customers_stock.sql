-- migrate:up
-- Reference lists, customers, products with variants, and stock. Money and quantities are numeric.

-- Timestamps on the wire: ISO 8601 UTC with milliseconds and Z, also inside JSON built by queries.
CREATE FUNCTION api_time(value timestamptz) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT to_char(value AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;

-- Decimals on the wire: strings without trailing zeros ('120000', '1.5').
CREATE FUNCTION api_decimal(value numeric) RETURNS text
LANGUAGE sql IMMUTABLE PARALLEL SAFE
AS $$ SELECT trim_scale(value)::text $$;

CREATE TABLE categories (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE warehouses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  address text,
  created_at timestamptz NOT NULL DEFAULT now(),
  deleted_at timestamptz
);

CREATE TABLE tags (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE payment_methods (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  kind text NOT NULL DEFAULT 'other' CHECK (kind IN ('cash', 'bank_transfer', 'card', 'cod', 'wallet', 'other')),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE sales_channels (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE carrier_connections (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  carrier text NOT NULL CHECK (carrier IN ('carrier_a', 'carrier_b')),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE customers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  gender text CHECK (gender IN ('male', 'female', 'other')),
  date_of_birth date,
  source text NOT NULL DEFAULT 'manual' CHECK (source IN ('manual', 'order', 'import')),
  is_blocked boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  deleted_at timestamptz
);
CREATE INDEX customers_sync_idx ON customers (shop_id, updated_at, id);
CREATE INDEX customers_name_idx ON customers USING gin (lower(name) gin_trgm_ops);

CREATE TABLE customer_contacts (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('phone', 'email')),
  value text NOT NULL,
  is_primary boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (customer_id, kind, value)
);
CREATE INDEX customer_contacts_value_idx ON customer_contacts (shop_id, kind, value);
CREATE UNIQUE INDEX customer_contacts_one_primary ON customer_contacts (customer_id, kind) WHERE is_primary;

CREATE TABLE customer_addresses (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  customer_id uuid NOT NULL REFERENCES customers (id) ON DELETE CASCADE,
  recipient_name text,
  recipient_phone text,
  address_line text NOT NULL,
  geo_system text CHECK (geo_system IN ('old', 'new')),
  province_unit_id uuid,
  district_unit_id uuid,
  ward_unit_id uuid,
  province_name text,
  district_name text,
  ward_name text,
  last_used_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX customer_addresses_customer_idx ON customer_addresses (customer_id, last_used_at DESC);

-- Attribute names and values known in the shop (case-insensitive), used by product variants.
CREATE TABLE attributes (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  name text NOT NULL
);
CREATE UNIQUE INDEX attributes_name_key ON attributes (shop_id, lower(name));
CREATE TABLE attribute_values (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  attribute_id uuid NOT NULL REFERENCES attributes (id) ON DELETE CASCADE,
  value text NOT NULL
);
CREATE UNIQUE INDEX attribute_values_value_key ON attribute_values (attribute_id, lower(value));

CREATE TABLE products (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  code text NOT NULL CHECK (length(code) BETWEEN 1 AND 100),
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 255),
  description text,
  type text NOT NULL DEFAULT 'simple' CHECK (type IN ('simple', 'service')),
  is_active boolean NOT NULL DEFAULT true,
  -- The product's attribute names, in order (from the first variant's keys).
  attribute_names text[] NOT NULL DEFAULT '{}' CHECK (cardinality(attribute_names) <= 10),
  -- Data outside the API's product shape (a change to it alone emits no event).
  short_path text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  deleted_at timestamptz
);
CREATE UNIQUE INDEX products_code_key ON products (shop_id, lower(code));
CREATE INDEX products_sync_idx ON products (shop_id, updated_at, id);
CREATE INDEX products_name_idx ON products USING gin (lower(name) gin_trgm_ops);

CREATE TABLE product_categories (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  category_id uuid NOT NULL REFERENCES categories (id) ON DELETE CASCADE,
  position smallint NOT NULL DEFAULT 0,
  PRIMARY KEY (product_id, category_id)
);

CREATE TABLE variants (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  position integer NOT NULL,
  code text NOT NULL CHECK (length(code) BETWEEN 1 AND 100),
  barcode text,
  price numeric(18, 3) NOT NULL DEFAULT 0 CHECK (price >= 0),
  weight_grams numeric(12, 3),
  length_cm numeric(10, 3),
  width_cm numeric(10, 3),
  height_cm numeric(10, 3),
  is_active boolean NOT NULL DEFAULT true,
  -- Attribute name → value as shown; combo_key is the same, lower-cased, in the product's order.
  attributes jsonb NOT NULL DEFAULT '{}',
  combo_key text NOT NULL DEFAULT '',
  keywords text[] NOT NULL DEFAULT '{}' CHECK (cardinality(keywords) <= 20),
  removed_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE UNIQUE INDEX variants_code_key ON variants (shop_id, lower(code));
CREATE UNIQUE INDEX variants_combo_key ON variants (product_id, combo_key) WHERE removed_at IS NULL;
CREATE INDEX variants_product_idx ON variants (product_id, position);

-- One registry of match keys per shop: product codes, variant codes and order-closing keywords.
CREATE TABLE match_keys (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  key_norm text NOT NULL,
  source text NOT NULL CHECK (source IN ('product_code', 'variant_code', 'keyword')),
  product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  variant_id uuid REFERENCES variants (id) ON DELETE CASCADE,
  UNIQUE NULLS NOT DISTINCT (shop_id, key_norm, source, product_id, variant_id)
);
CREATE INDEX match_keys_lookup_idx ON match_keys (shop_id, key_norm);

CREATE TABLE product_images (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  product_id uuid NOT NULL REFERENCES products (id) ON DELETE CASCADE,
  url text NOT NULL,
  kind text NOT NULL DEFAULT 'image' CHECK (kind IN ('image', 'video')),
  variant_ids uuid[] NOT NULL DEFAULT '{}',
  position integer NOT NULL DEFAULT 0
);

CREATE TABLE stock (
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  variant_id uuid NOT NULL REFERENCES variants (id) ON DELETE CASCADE,
  warehouse_id uuid NOT NULL REFERENCES warehouses (id) ON DELETE CASCADE,
  quantity numeric(18, 3) NOT NULL DEFAULT 0,
  reserved numeric(18, 3) NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  in_transit numeric(18, 3) NOT NULL DEFAULT 0 CHECK (in_transit >= 0),
  -- Moves only when quantity or in_transit changes (spec, Synchronisation semantics 1).
  stock_changed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  id uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
  PRIMARY KEY (variant_id, warehouse_id)
);
CREATE INDEX stock_sync_idx ON stock (shop_id, stock_changed_at, id);

CREATE FUNCTION stock_mark_change() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
  IF NEW.quantity IS DISTINCT FROM OLD.quantity OR NEW.in_transit IS DISTINCT FROM OLD.in_transit THEN
    NEW.stock_changed_at := clock_timestamp();
  ELSE
    NEW.stock_changed_at := OLD.stock_changed_at;
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER stock_mark_change BEFORE UPDATE ON stock FOR EACH ROW EXECUTE FUNCTION stock_mark_change();

CREATE TABLE inventory_documents (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('receipt', 'issue', 'adjustment', 'transfer')),
  warehouse_id uuid NOT NULL REFERENCES warehouses (id),
  target_warehouse_id uuid REFERENCES warehouses (id),
  status text NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'posted', 'received')),
  note text,
  created_at timestamptz NOT NULL DEFAULT now(),
  posted_at timestamptz,
  received_at timestamptz,
  CHECK ((kind = 'transfer') = (target_warehouse_id IS NOT NULL)),
  CHECK (target_warehouse_id IS DISTINCT FROM warehouse_id)
);

CREATE TABLE inventory_document_lines (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  document_id uuid NOT NULL REFERENCES inventory_documents (id) ON DELETE CASCADE,
  variant_id uuid NOT NULL REFERENCES variants (id),
  quantity numeric(18, 3) NOT NULL CHECK (quantity <> 0)
);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY[
  'categories', 'warehouses', 'tags', 'payment_methods', 'sales_channels', 'carrier_connections',
  'customers', 'customer_contacts', 'customer_addresses', 'attributes', 'attribute_values',
  'products', 'product_categories', 'variants', 'match_keys', 'product_images', 'stock',
  'inventory_documents', 'inventory_document_lines'
]::regclass[]) AS shop_table;

-- migrate:down
DROP TABLE inventory_document_lines, inventory_documents, stock, product_images, match_keys, variants,
  product_categories, products, attribute_values, attributes, customer_addresses, customer_contacts,
  customers, carrier_connections, sales_channels, payment_methods, tags, warehouses, categories;
DROP FUNCTION stock_mark_change();
DROP FUNCTION api_decimal(numeric);
DROP FUNCTION api_time(timestamptz);
