-- The highest frame id pruned by retention: a client whose last id is below it missed frames that
-- no longer exist, and gets `resync` instead of a replay with a hole in it.
CREATE TABLE stream_retention (
    id             boolean PRIMARY KEY DEFAULT true CHECK (id),
    pruned_through bigint  NOT NULL DEFAULT 0
);
INSERT INTO stream_retention DEFAULT VALUES;
