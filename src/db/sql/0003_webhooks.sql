-- 0003 webhooks: endpoints, the merchant callback secret, the fan-out queue, deliveries, attempts.
-- Forward-only: never edit an applied migration; add a new one. Keep to what PostgreSQL 15 runs.
-- Design and reasons: docs/decisions/0013-webhooks-outbox.md.

CREATE TABLE webhook_endpoints (
  id                         text PRIMARY KEY,
  merchant_id                text NOT NULL REFERENCES merchants (id),
  environment                text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  url                        text NOT NULL CHECK (length(url) <= 2048),
  description                text CHECK (description IS NULL OR length(description) <= 500),
  -- JSON array of event types; ["*"] means every type, including types added later.
  enabled_events             jsonb NOT NULL CHECK (jsonb_typeof(enabled_events) = 'array'),
  status                     text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason            text CHECK (disabled_reason IN ('manual', 'gone', 'failing')),
  -- Signing secrets must be recoverable to sign, so they are encrypted (AES-256-GCM under a key
  -- derived from TRIBUTARY_SECRET), never stored in clear text.
  secret_ciphertext          text NOT NULL,
  previous_secret_ciphertext text,
  previous_secret_expires_at timestamptz,
  -- Start of the current run of failed attempts; cleared by any success.
  failing_since              timestamptz,
  version                    integer NOT NULL CHECK (version >= 1),
  created_at                 timestamptz NOT NULL,
  updated_at                 timestamptz NOT NULL,
  deleted_at                 timestamptz,
  CHECK ((status = 'disabled') = (disabled_reason IS NOT NULL)),
  CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL))
);
CREATE INDEX webhook_endpoints_by_merchant ON webhook_endpoints (merchant_id, environment, created_at)
  WHERE deleted_at IS NULL;

-- One secret per merchant and environment for the callback_url of payments.
CREATE TABLE callback_secrets (
  merchant_id                text NOT NULL REFERENCES merchants (id),
  environment                text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  secret_ciphertext          text NOT NULL,
  previous_secret_ciphertext text,
  previous_secret_expires_at timestamptz,
  -- The secret is shown once: set when it was revealed (GET or rotate).
  revealed_at                timestamptz,
  created_at                 timestamptz NOT NULL,
  rotated_at                 timestamptz,
  PRIMARY KEY (merchant_id, environment),
  CHECK ((previous_secret_ciphertext IS NULL) = (previous_secret_expires_at IS NULL))
);

-- Events waiting to be fanned out into deliveries. A trigger fills it in the transaction that
-- inserts the event, so every event is queued whoever writes it, at the cost of one narrow
-- insert on the hot path (the dispatcher does the endpoint look-ups later, off the request).
CREATE TABLE webhook_fanout_queue (
  event_id text PRIMARY KEY
);

CREATE FUNCTION events_enqueue_fanout() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO webhook_fanout_queue (event_id) VALUES (NEW.id);
  RETURN NULL;
END
$$;
CREATE TRIGGER events_enqueue_fanout AFTER INSERT ON events
  FOR EACH ROW EXECUTE FUNCTION events_enqueue_fanout();

-- One event to one target (an endpoint or a payment's callback_url), with its retry state.
CREATE TABLE webhook_deliveries (
  id               text PRIMARY KEY,
  event_id         text NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  merchant_id      text NOT NULL,
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  endpoint_id      text REFERENCES webhook_endpoints (id),
  callback_url     text,
  -- Groups deliveries that hit the same receiver, for per-receiver concurrency limits.
  target_key       text NOT NULL,
  trigger          text NOT NULL CHECK (trigger IN ('event', 'redelivery')),
  status           text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  failure_reason   text CHECK (failure_reason IN ('exhausted', 'gone', 'endpoint_disabled', 'endpoint_deleted')),
  attempt_count    integer NOT NULL DEFAULT 0 CHECK (attempt_count >= 0),
  -- Pending: when the next attempt is due. While a worker holds the delivery this is its lease
  -- expiry, so a dead worker's deliveries simply become due again.
  next_attempt_at  timestamptz,
  lease_token      text,
  last_attempt_at  timestamptz,
  last_status_code integer,
  created_at       timestamptz NOT NULL,
  updated_at       timestamptz NOT NULL,
  completed_at     timestamptz,
  CHECK ((endpoint_id IS NULL) <> (callback_url IS NULL)),
  CHECK ((status = 'pending') = (next_attempt_at IS NOT NULL)),
  CHECK ((status IN ('failed', 'canceled')) = (failure_reason IS NOT NULL)),
  CHECK ((status = 'pending') = (completed_at IS NULL))
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_by_event ON webhook_deliveries (event_id, created_at);
CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint_id) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_completed ON webhook_deliveries (completed_at) WHERE status <> 'pending';

-- Every HTTP attempt, whatever its outcome.
CREATE TABLE webhook_attempts (
  id             text PRIMARY KEY,
  delivery_id    text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  attempt_number integer NOT NULL CHECK (attempt_number >= 1),
  url            text NOT NULL,
  outcome        text NOT NULL CHECK (outcome IN ('succeeded', 'http_error', 'redirect', 'timeout', 'network_error', 'blocked')),
  status_code    integer,
  duration_ms    integer NOT NULL CHECK (duration_ms >= 0),
  response_body  text,
  error          text,
  attempted_at   timestamptz NOT NULL
);
CREATE INDEX webhook_attempts_by_delivery ON webhook_attempts (delivery_id, attempted_at);
