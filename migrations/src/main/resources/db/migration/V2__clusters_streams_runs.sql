-- The rest of DESIGN's schema, laid now so that later features only add columns (expand/contract).

CREATE TABLE cluster (
    id             uuid        PRIMARY KEY,
    name           text        NOT NULL UNIQUE,
    management_url text        NOT NULL,
    username       text        NOT NULL,
    password_ref   text        NOT NULL,
    settings       jsonb       NOT NULL DEFAULT '{}'::jsonb,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE cluster_lease (
    cluster_id uuid        PRIMARY KEY REFERENCES cluster (id) ON DELETE CASCADE,
    replica_id text        NOT NULL,
    token      bigint      NOT NULL,
    renewed_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL
);
CREATE INDEX cluster_lease_replica ON cluster_lease (replica_id);

CREATE TABLE cluster_node (
    cluster_id  uuid        NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    node        text        NOT NULL,
    status      jsonb       NOT NULL DEFAULT '{}'::jsonb,
    split_brain boolean     NOT NULL DEFAULT false,
    verdict     text,
    updated_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster_id, node)
);

CREATE TABLE cluster_state (
    cluster_id uuid        NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    tier       text        NOT NULL,
    state      jsonb       NOT NULL,
    token      bigint      NOT NULL,
    scraped_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (cluster_id, tier)
);

CREATE TABLE broker_event (
    seq         bigserial   PRIMARY KEY,
    cluster_id  uuid        NOT NULL REFERENCES cluster (id) ON DELETE CASCADE,
    kind        text        NOT NULL,
    payload     jsonb       NOT NULL,
    occurred_at timestamptz NOT NULL,
    recorded_at timestamptz NOT NULL DEFAULT now(),
    recorded_by text        NOT NULL
);
CREATE INDEX broker_event_cluster_seq ON broker_event (cluster_id, seq);

-- data is json, not jsonb: a frame is replayed as the exact text that was published
CREATE TABLE stream_frame (
    id         bigserial   PRIMARY KEY,
    topic      text        NOT NULL,
    data       json        NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stream_frame_topic_id ON stream_frame (topic, id);
CREATE INDEX stream_frame_created ON stream_frame (created_at);

CREATE TABLE bulk_run (
    id             uuid        PRIMARY KEY,
    kind           text        NOT NULL,
    cluster_id     uuid        REFERENCES cluster (id) ON DELETE SET NULL,
    replica_id     text        NOT NULL,
    state          text        NOT NULL CHECK (state IN ('running', 'stopping', 'stopped', 'interrupted', 'succeeded', 'failed')),
    params         jsonb       NOT NULL DEFAULT '{}'::jsonb,
    done           integer     NOT NULL DEFAULT 0,
    total          integer,
    current_item   text,
    stop_requested boolean     NOT NULL DEFAULT false,
    error          text,
    created_at     timestamptz NOT NULL DEFAULT now(),
    updated_at     timestamptz NOT NULL DEFAULT now(),
    finished_at    timestamptz
);
CREATE INDEX bulk_run_replica_state ON bulk_run (replica_id, state);

CREATE TABLE api_token (
    id         uuid        PRIMARY KEY,
    name       text        NOT NULL,
    hash       bytea       NOT NULL UNIQUE,
    role       text        NOT NULL CHECK (role IN ('viewer', 'operator', 'admin')),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);

CREATE TABLE idempotency_key (
    key        text        NOT NULL,
    scope      text        NOT NULL,
    request    bytea       NOT NULL,
    response   jsonb       NOT NULL,
    status     integer     NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (scope, key)
);
