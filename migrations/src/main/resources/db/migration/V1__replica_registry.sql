-- Foundation: who is alive, and which builds may run against this schema.

CREATE TABLE schema_compat (
    id         boolean PRIMARY KEY DEFAULT true CHECK (id),   -- a single row
    min_build  text        NOT NULL,                           -- oldest build version allowed to run
    updated_at timestamptz NOT NULL DEFAULT now()
);
INSERT INTO schema_compat (min_build) VALUES ('0.1.0');

CREATE TABLE studio_replica (
    id           text        PRIMARY KEY,
    host         text        NOT NULL,
    version      text        NOT NULL,
    state        text        NOT NULL CHECK (state IN ('starting', 'ready', 'draining', 'stopped')),
    safe_mode    boolean     NOT NULL DEFAULT false,
    started_at   timestamptz NOT NULL DEFAULT now(),
    heartbeat_at timestamptz NOT NULL DEFAULT now(),
    stopped_at   timestamptz
);
-- the crash-loop guard counts recent crashes of one host
CREATE INDEX studio_replica_host_started ON studio_replica (host, started_at DESC);
