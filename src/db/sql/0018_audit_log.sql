-- 0018: the audit log (docs/audit-log.md). One row per change made by a person, a key or the
-- operator, written in the transaction of the change it records. Append-only: the database
-- refuses UPDATE, DELETE and TRUNCATE on it, whoever asks.

CREATE TABLE audit_log (
  id           text PRIMARY KEY,            -- aud_…, time-ordered
  merchant_id  text NOT NULL REFERENCES merchants (id),
  environment  text CHECK (environment IN ('sandbox', 'production')),  -- NULL: merchant-wide (members)
  occurred_at  timestamptz NOT NULL,
  action       text NOT NULL,               -- api_key.created, refund.created, user.sign_in_failed, …
  outcome      text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  actor_type   text NOT NULL CHECK (actor_type IN ('api_key', 'user', 'operator', 'system')),
  actor_id     text,                        -- key_… or usr_…; NULL for operator and system
  actor_label  text NOT NULL,               -- key prefix, e-mail, operator or job name: never a secret
  actor_role   text,                        -- the person's role at the time
  address      text,
  user_agent   text,
  request_id   text,
  object_type  text,
  object_id    text,
  changes      jsonb NOT NULL
);
-- GET /audit_log: newest first per merchant, optionally one environment, one action, one object.
CREATE INDEX audit_log_by_merchant ON audit_log (merchant_id, id);
CREATE INDEX audit_log_by_object ON audit_log (merchant_id, object_id, id) WHERE object_id IS NOT NULL;
CREATE INDEX audit_log_by_actor ON audit_log (merchant_id, actor_id, id) WHERE actor_id IS NOT NULL;

CREATE OR REPLACE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_log is append-only' USING ERRCODE = 'insufficient_privilege';
END
$$;
CREATE TRIGGER audit_log_no_update_or_delete BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
