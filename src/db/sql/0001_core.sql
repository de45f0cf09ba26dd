-- 0001 core: merchants, API keys, payments and attempts, idempotency keys, events.
-- Forward-only: never edit an applied migration; add a new one. Keep to what PostgreSQL 15 runs.

CREATE TABLE merchants (
  id          text PRIMARY KEY,
  name        text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  api_version text NOT NULL,
  settings    jsonb NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL REFERENCES merchants (id),
  environment    text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  -- HMAC-SHA256 of the whole key under the deployment secret; the key itself is never stored.
  secret_hash    text NOT NULL UNIQUE,
  display_prefix text NOT NULL,
  created_at     timestamptz NOT NULL,
  expires_at     timestamptz,
  revoked_at     timestamptz
);
CREATE INDEX api_keys_by_merchant ON api_keys (merchant_id, environment, created_at);

CREATE TABLE payments (
  id                    text PRIMARY KEY,
  merchant_id           text NOT NULL REFERENCES merchants (id),
  environment           text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  status                text NOT NULL CHECK (status IN
                          ('processing', 'pending', 'succeeded', 'failed', 'expired', 'canceled', 'reversed')),
  amount_minor          bigint NOT NULL CHECK (amount_minor > 0),
  currency              text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  reference_no          text NOT NULL,
  description           text,
  channel_requested     text NOT NULL CHECK (channel_requested IN ('bank', 'ewallet', 'counter', 'auto')),
  channel               text CHECK (channel IN ('bank', 'ewallet', 'counter')),
  payment_method        jsonb,
  instructions          jsonb,
  metadata              jsonb NOT NULL DEFAULT '{}'::jsonb,
  email                 text,
  callback_url          text,
  api_version           text NOT NULL,
  version               integer NOT NULL CHECK (version >= 1),
  expires_at            timestamptz NOT NULL,
  failure_code          text,
  failure_message       text,
  amount_refunded_minor bigint NOT NULL DEFAULT 0,
  created_at            timestamptz NOT NULL,
  updated_at            timestamptz NOT NULL,
  succeeded_at          timestamptz,
  closed_at             timestamptz,
  CHECK (amount_refunded_minor >= 0 AND amount_refunded_minor <= amount_minor),
  -- A pending payment always has the instructions the payer needs.
  CHECK (status <> 'pending' OR instructions IS NOT NULL)
);
-- A live payment owns its reference_no; failed, expired, canceled (and reversed) ones free it.
CREATE UNIQUE INDEX payments_live_reference_no ON payments (merchant_id, environment, reference_no)
  WHERE status IN ('processing', 'pending', 'succeeded');
CREATE INDEX payments_by_merchant_created ON payments (merchant_id, environment, created_at DESC, id DESC);
CREATE INDEX payments_open_by_expiry ON payments (expires_at) WHERE status IN ('processing', 'pending');

-- The transition table, mirrored from src/modules/payments/payment-states.ts (a test compares them).
CREATE FUNCTION payment_transition_allowed(from_status text, to_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT (from_status, to_status) IN (
    ('processing', 'pending'), ('processing', 'failed'),
    ('pending', 'succeeded'), ('pending', 'failed'), ('pending', 'expired'), ('pending', 'canceled'),
    ('succeeded', 'reversed')
  )
$$;

CREATE FUNCTION payments_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.environment <> OLD.environment
     OR NEW.amount_minor <> OLD.amount_minor OR NEW.currency <> OLD.currency
     OR NEW.reference_no <> OLD.reference_no OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'payment %: immutable column changed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status <> OLD.status AND NOT payment_transition_allowed(OLD.status, NEW.status) THEN
    RAISE EXCEPTION 'payment %: transition % -> % not allowed', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.version <> OLD.version + 1 THEN
    RAISE EXCEPTION 'payment %: version must go from % to %', OLD.id, OLD.version, OLD.version + 1
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER payments_guard_update BEFORE UPDATE ON payments
  FOR EACH ROW EXECUTE FUNCTION payments_guard_update();

CREATE TABLE payment_attempts (
  id                 text PRIMARY KEY,
  payment_id         text NOT NULL REFERENCES payments (id),
  merchant_id        text NOT NULL,
  environment        text NOT NULL,
  seq                integer NOT NULL CHECK (seq >= 1),
  connector          text NOT NULL,
  channel            text NOT NULL CHECK (channel IN ('bank', 'ewallet', 'counter')),
  instrument         text,
  status             text NOT NULL CHECK (status IN ('started', 'issued', 'failed', 'succeeded', 'expired', 'canceled')),
  provider_reference text,
  instructions       jsonb,
  error_code         text,
  error_message      text,
  routing_trace      jsonb NOT NULL DEFAULT '[]'::jsonb,
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  UNIQUE (payment_id, seq)
);

CREATE TABLE idempotency_keys (
  merchant_id     text NOT NULL,
  environment     text NOT NULL,
  operation       text NOT NULL,
  key             text NOT NULL,
  fingerprint     text NOT NULL,
  status          text NOT NULL CHECK (status IN ('started', 'finished')),
  recovery_point  text NOT NULL,
  resource_id     text,
  lease_token     text,
  locked_until    timestamptz,
  response_status integer,
  response_body   text,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  expires_at      timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, environment, operation, key),
  CHECK (status = 'started' OR (response_status IS NOT NULL AND response_body IS NOT NULL))
);
CREATE INDEX idempotency_keys_finished_expiry ON idempotency_keys (expires_at) WHERE status = 'finished';
CREATE INDEX idempotency_keys_by_resource ON idempotency_keys (resource_id) WHERE status = 'started';

-- Immutable: an event is never updated or deleted by the application (retention excepted).
CREATE TABLE events (
  id             text PRIMARY KEY,
  merchant_id    text NOT NULL,
  environment    text NOT NULL,
  type           text NOT NULL,
  object_type    text NOT NULL,
  object_id      text NOT NULL,
  object_version integer NOT NULL,
  api_version    text NOT NULL,
  payload        jsonb NOT NULL,
  created_at     timestamptz NOT NULL
);
CREATE INDEX events_by_merchant_created ON events (merchant_id, environment, created_at DESC, id DESC);
CREATE INDEX events_by_object ON events (object_id, object_version);

CREATE FUNCTION events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'events are immutable' USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER events_immutable BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION events_immutable();
