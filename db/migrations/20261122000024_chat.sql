-- migrate:up
-- Chat (the chat module): each page's link to its platform page, the customers who write to it
-- (page-scoped ids), one conversation per (page, customer), their messages, and comments on the
-- page's posts. The pages themselves stay with access (applications and flows choose them).

-- The platform side of a page: its platform id and page access token, sealed with the shop's page id
-- as associated data (domain/kernel/sealed-secrets.ts). `connected` is the platform's answer: false
-- once it refuses the token (code 190), true again when a new token is stored.
CREATE TABLE chat_page_links (
  page_id uuid PRIMARY KEY REFERENCES pages (id) ON DELETE CASCADE,
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  platform_page_id text NOT NULL CHECK (length(platform_page_id) BETWEEN 1 AND 255),
  sealed_access_token bytea NOT NULL,
  connected boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
-- A platform page is connected to one shop at a time: an inbound webhook names only the platform page.
CREATE UNIQUE INDEX chat_page_links_platform_page_key ON chat_page_links (platform_page_id);

-- A person as one page knows them (the page-scoped id); linked to the shop's customer whose phone matches.
CREATE TABLE chat_customers (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  platform_customer_id text NOT NULL CHECK (length(platform_customer_id) BETWEEN 1 AND 255),
  name text CHECK (length(name) <= 255),
  phone text,
  customer_id uuid REFERENCES customers (id) ON DELETE SET NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (page_id, platform_customer_id)
);
CREATE INDEX chat_customers_customer_idx ON chat_customers (customer_id) WHERE customer_id IS NOT NULL;

CREATE TABLE chat_conversations (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  chat_customer_id uuid NOT NULL UNIQUE REFERENCES chat_customers (id) ON DELETE CASCADE,
  -- When Shopflow recorded the newest message: the list's sort key and its updatedSince mark.
  last_message_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  -- The platform time of the message the snippet shows.
  snippet_sent_at timestamptz,
  snippet text NOT NULL DEFAULT '' CHECK (length(snippet) <= 200),
  -- The platform time of the customer's latest message: the messaging window runs from it.
  last_customer_message_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX chat_conversations_sync_idx ON chat_conversations (shop_id, last_message_at, id);

CREATE TABLE chat_messages (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  conversation_id uuid NOT NULL REFERENCES chat_conversations (id) ON DELETE CASCADE,
  direction text NOT NULL CHECK (direction IN ('in', 'out')),
  text text CHECK (length(text) <= 5000),
  attachments jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(attachments) = 'array'),
  -- Inbound: the customer's name then; outbound: the person or application that sent it.
  sender_name text CHECK (length(sender_name) <= 255),
  sent_by_integration boolean NOT NULL DEFAULT false,
  platform_message_id text NOT NULL CHECK (length(platform_message_id) BETWEEN 1 AND 255),
  -- The platform's time of the message (received or sent).
  sent_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  CHECK (text IS NOT NULL OR jsonb_array_length(attachments) > 0)
);
-- A webhook the platform retries, or the echo of our own send, stores one message.
CREATE UNIQUE INDEX chat_messages_platform_key ON chat_messages (page_id, platform_message_id);
CREATE INDEX chat_messages_conversation_idx ON chat_messages (conversation_id, sent_at, id);

CREATE TABLE chat_comments (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  shop_id uuid NOT NULL REFERENCES shops (id) ON DELETE CASCADE,
  page_id uuid NOT NULL REFERENCES pages (id) ON DELETE CASCADE,
  platform_comment_id text NOT NULL CHECK (length(platform_comment_id) BETWEEN 1 AND 255),
  platform_post_id text NOT NULL,
  platform_parent_id text,
  chat_customer_id uuid REFERENCES chat_customers (id) ON DELETE SET NULL,
  author_name text CHECK (length(author_name) <= 255),
  text text CHECK (length(text) <= 8000),
  hidden boolean NOT NULL DEFAULT false,
  removed_at timestamptz,
  privately_replied_at timestamptz,
  -- The platform's time of the comment.
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  UNIQUE (page_id, platform_comment_id)
);

SELECT enable_shop_isolation(shop_table) FROM unnest(ARRAY[
  'chat_customers', 'chat_conversations', 'chat_messages', 'chat_comments'
]::regclass[]) AS shop_table;

-- A link is visible in its shop, or to the inbound webhook that names its platform page
-- (app.platform_page_id), which is how the webhook finds the shop, as a key finds its shop by hash.
ALTER TABLE chat_page_links ENABLE ROW LEVEL SECURITY;
ALTER TABLE chat_page_links FORCE ROW LEVEL SECURITY;
CREATE POLICY shop_isolation ON chat_page_links
  USING (shop_id = current_shop_id() OR platform_page_id = current_setting('app.platform_page_id', true))
  WITH CHECK (shop_id = current_shop_id());

-- migrate:down
DROP TABLE chat_comments, chat_messages, chat_conversations, chat_customers, chat_page_links;
