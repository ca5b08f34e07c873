-- Who did what. Writers take a transaction-scoped advisory lock before taking the next id (as
-- stream_frame does), so `after=<id>` paging never skips an entry that committed late.
CREATE TABLE audit_log (
    id         bigserial   PRIMARY KEY,
    at         timestamptz NOT NULL DEFAULT now(),
    token_id   uuid,
    token_name text        NOT NULL,
    role       text,
    action     text        NOT NULL,
    target     text,
    status     integer     NOT NULL,
    replica_id text        NOT NULL
);
CREATE INDEX audit_log_at ON audit_log (at);

-- The key every replica signs and checks stream tickets with; created once by the first replica.
CREATE TABLE auth_key (
    id         integer     PRIMARY KEY CHECK (id = 1),
    secret     bytea       NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);

-- Keys expire after studio.auth.idempotency-ttl; status 0 marks a request still being acted on.
CREATE INDEX idempotency_key_created ON idempotency_key (created_at);
