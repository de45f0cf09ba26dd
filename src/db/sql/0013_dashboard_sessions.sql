-- 0013: sessions of the merchant dashboard (docs/dashboard.md, decision 0019). A session is opened
-- by presenting a secret API key once; the browser keeps an opaque random token in an HttpOnly
-- cookie and we keep only its HMAC under the deployment secret. The session is bound to the key it
-- was opened with: a revoked or rolled key ends it (checked on every request, by the join).

CREATE TABLE dashboard_sessions (
  token_hash   text PRIMARY KEY,
  key_id       text NOT NULL REFERENCES api_keys (id),
  created_at   timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  ended_at     timestamptz,
  CHECK (last_seen_at >= created_at)
);
CREATE INDEX dashboard_sessions_by_key ON dashboard_sessions (key_id);
CREATE INDEX dashboard_sessions_by_last_seen ON dashboard_sessions (last_seen_at);

-- The webhook endpoints screen shows each endpoint's recent health (its deliveries of the last days).
CREATE INDEX webhook_deliveries_by_endpoint_created ON webhook_deliveries (endpoint_id, created_at)
  WHERE endpoint_id IS NOT NULL;
