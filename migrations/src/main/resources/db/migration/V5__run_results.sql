-- What a finished run has to say: a dry run's list of items, a failure's details.
ALTER TABLE bulk_run ADD COLUMN result jsonb;
CREATE INDEX bulk_run_created ON bulk_run (created_at DESC);
