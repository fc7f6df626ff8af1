-- migrate:up
-- The chat module publishes whether a page can speak on its platform: linked, and the platform still
-- accepts its token. Access, which owns pages and must not depend on chat (chat depends on access),
-- shows it in GET /pages. Runs with the caller's rights, so row-level security keeps it to the
-- transaction's shop.
CREATE FUNCTION chat_page_connected(p_page_id uuid) RETURNS boolean
LANGUAGE sql STABLE
AS $$ SELECT coalesce((SELECT l.connected FROM chat_page_links l WHERE l.page_id = p_page_id), false) $$;

-- When the comment's visibility last changed (the platform's time of a hide/unhide, or Shopflow's
-- own hide/show): the platform delivers each feed event on its own, so an older one arriving late
-- must not undo a newer change.
ALTER TABLE chat_comments ADD COLUMN hidden_changed_at timestamptz;

-- migrate:down
ALTER TABLE chat_comments DROP COLUMN hidden_changed_at;
DROP FUNCTION chat_page_connected(uuid);
