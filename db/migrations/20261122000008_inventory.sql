-- migrate:up
-- Inventory documents keep their lines in the order they were sent, and name a variant once.

ALTER TABLE inventory_document_lines ADD COLUMN position integer NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX inventory_document_lines_variant_key ON inventory_document_lines (document_id, variant_id);
CREATE INDEX inventory_document_lines_document_idx ON inventory_document_lines (document_id, position);

-- migrate:down
DROP INDEX inventory_document_lines_document_idx;
DROP INDEX inventory_document_lines_variant_key;
ALTER TABLE inventory_document_lines DROP COLUMN position;
