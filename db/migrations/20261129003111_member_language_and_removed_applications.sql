-- migrate:up
-- The admin app's language is each person's choice (issue 31), kept on their account so it follows
-- them to any browser; null until they choose (the app then keeps the language its login screen showed).
ALTER TABLE users ADD COLUMN language text CHECK (language IN ('vi', 'en'));

-- A removed connection application keeps its row (the shop log and order notes still name it); its
-- keys are revoked, it is listed no more and no longer counts towards the shop's ten.
ALTER TABLE applications ADD COLUMN removed_at timestamptz;

-- migrate:down
ALTER TABLE applications DROP COLUMN removed_at;
ALTER TABLE users DROP COLUMN language;
