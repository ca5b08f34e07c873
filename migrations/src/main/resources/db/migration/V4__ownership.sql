-- Fast takeover: each replica holds a session advisory lock with this key on its LISTEN connection;
-- PostgreSQL frees it the moment that connection dies, so the others may treat the replica as gone.
ALTER TABLE studio_replica ADD COLUMN lock_key bigint;

-- A released lease keeps its row (expires_at in the past) so the fencing token only ever grows.
CREATE INDEX cluster_lease_expires ON cluster_lease (expires_at);
