-- migrate:up
-- The platform's time of the change whose text a comment holds (an add, an edit, or its removal): the
-- platform delivers each feed event on its own and a webhook may be replayed, so an edit older than
-- it must not bring back older text.
ALTER TABLE chat_comments ADD COLUMN text_changed_at timestamptz;

-- migrate:down
ALTER TABLE chat_comments DROP COLUMN text_changed_at;
