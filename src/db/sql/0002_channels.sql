-- 0002 channels: every payment reaching its end. Provider notifications stored raw, attempt
-- fields for what the provider reported (status, change counter, amount paid, late payments) and
-- the status-sync schedule, payment fields for routing and the amount paid, and two new
-- transitions for an accepted late payment. Forward-only; PostgreSQL 15 compatible.

-- The transition table, mirrored from src/modules/payments/payment-states.ts (a test compares
-- them). New: expired → succeeded and canceled → succeeded, taken only when a late payment is
-- accepted (docs/payments.md, "Late payments").
CREATE OR REPLACE FUNCTION payment_transition_allowed(from_status text, to_status text) RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
  SELECT (from_status, to_status) IN (
    ('processing', 'pending'), ('processing', 'failed'),
    ('pending', 'succeeded'), ('pending', 'failed'), ('pending', 'expired'), ('pending', 'canceled'),
    ('succeeded', 'reversed'),
    ('expired', 'succeeded'), ('canceled', 'succeeded')
  )
$$;

ALTER TABLE payments
  -- The routing decision (candidates and why) and the attempts it led to; shown as `routing`.
  ADD COLUMN routing jsonb,
  -- What the payer paid on the issued attempt (may differ from amount_minor: under/over payment).
  ADD COLUMN amount_paid_minor bigint NOT NULL DEFAULT 0 CHECK (amount_paid_minor >= 0),
  -- A payment that arrived after the payment closed, and what the merchant's policy did with it.
  ADD COLUMN late_payment jsonb,
  ADD COLUMN cancellation_reason text;

ALTER TABLE payment_attempts DROP CONSTRAINT payment_attempts_status_check;
ALTER TABLE payment_attempts ADD CONSTRAINT payment_attempts_status_check
  CHECK (status IN ('started', 'issued', 'failed', 'succeeded', 'expired', 'canceled', 'reversed'));

ALTER TABLE payment_attempts
  -- The expiry sent to the provider, fixed when the attempt is made: a re-sent attempt must be the
  -- identical request, or the provider (rightly) refuses its idempotency key.
  ADD COLUMN charge_expires_at timestamptz,
  -- The provider's last applied view of the charge: status word and change counter. A
  -- notification or status read with a counter not above provider_sequence is old news.
  ADD COLUMN provider_status text,
  ADD COLUMN provider_sequence integer NOT NULL DEFAULT 0 CHECK (provider_sequence >= 0),
  ADD COLUMN amount_paid_minor bigint NOT NULL DEFAULT 0 CHECK (amount_paid_minor >= 0),
  ADD COLUMN paid_at timestamptz,
  ADD COLUMN late_payment_at timestamptz,
  ADD COLUMN late_payment_resolution text CHECK (late_payment_resolution IN ('accepted', 'refund_required')),
  -- Status sync: when to ask the provider next while the attempt is open.
  ADD COLUMN next_sync_at timestamptz,
  ADD COLUMN sync_count integer NOT NULL DEFAULT 0,
  ADD COLUMN last_synced_at timestamptz;
CREATE INDEX payment_attempts_due_sync ON payment_attempts (next_sync_at) WHERE status = 'issued';
CREATE INDEX payment_attempts_by_payment ON payment_attempts (payment_id, seq);

-- Inbound provider notifications, stored raw once their signature checked out, acknowledged, and
-- processed afterwards by a job (the Medusa pattern): a crash after the acknowledgement loses
-- nothing, and the provider's event id makes a redelivery a no-op.
CREATE TABLE provider_notifications (
  id                text PRIMARY KEY,
  -- Arrival order (ids made in the same millisecond do not sort by arrival); processing follows it.
  arrival           bigint GENERATED ALWAYS AS IDENTITY,
  connector         text NOT NULL,
  provider_event_id text NOT NULL,
  raw_body          text NOT NULL,
  -- The request headers as received (signature included), for audit; credentials are never sent here.
  headers           jsonb NOT NULL,
  received_at       timestamptz NOT NULL,
  status            text NOT NULL CHECK (status IN ('received', 'processed', 'ignored', 'failed')),
  attempts          integer NOT NULL DEFAULT 0,
  next_attempt_at   timestamptz NOT NULL,
  locked_until      timestamptz,
  -- Filled by processing: whom it concerned and what it did.
  merchant_id       text,
  environment       text,
  payment_id        text,
  attempt_id        text,
  outcome           text,
  error             text,
  processed_at      timestamptz,
  UNIQUE (connector, provider_event_id)
);
CREATE INDEX provider_notifications_due ON provider_notifications (next_attempt_at, arrival) WHERE status = 'received';
CREATE INDEX provider_notifications_by_payment ON provider_notifications (merchant_id, environment, payment_id);
