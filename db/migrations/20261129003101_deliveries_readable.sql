-- migrate:up
-- A delivery the admin can read (issue 31): what it was about (the record's code or name, kept as long
-- as the delivery, while its event goes sooner), the data a test-run sent (a test-run has no stored
-- event), and, while it retries, when the next attempt is and how many are left.
ALTER TABLE deliveries
  ADD COLUMN about text,
  ADD COLUMN test_data jsonb,
  ADD COLUMN next_attempt_at timestamptz,
  ADD COLUMN attempts_left integer;

-- migrate:down
ALTER TABLE deliveries DROP COLUMN about, DROP COLUMN test_data, DROP COLUMN next_attempt_at, DROP COLUMN attempts_left;
