-- 0008 refunds (docs/money.md, docs/decisions/0015-refunds.md). A refund is its own object; the
-- payment keeps `amount_refunded_minor` (succeeded refunds only). Forward-only; PostgreSQL 15.

CREATE TABLE refunds (
  id                 text PRIMARY KEY,
  merchant_id        text NOT NULL REFERENCES merchants (id),
  environment        text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  payment_id         text NOT NULL REFERENCES payments (id),
  attempt_id         text NOT NULL REFERENCES payment_attempts (id),
  connector          text NOT NULL,
  amount_minor       bigint NOT NULL CHECK (amount_minor > 0),
  currency           text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  status             text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  reason             text CHECK (reason IN ('requested_by_customer', 'duplicate', 'fraudulent')),
  failure_code       text,
  failure_message    text,
  provider_refund_id text,
  -- Where the hold was taken from (merchant_pending before settlement, merchant_available after).
  held_from          text NOT NULL CHECK (held_from IN ('merchant_pending', 'merchant_available')),
  version            integer NOT NULL CHECK (version >= 1),
  -- The refund sync job asks the provider again at this time while the refund is pending.
  next_sync_at       timestamptz,
  sync_count         integer NOT NULL DEFAULT 0 CHECK (sync_count >= 0),
  created_at         timestamptz NOT NULL,
  updated_at         timestamptz NOT NULL,
  completed_at       timestamptz,
  CHECK ((status = 'failed') = (failure_code IS NOT NULL)),
  CHECK ((status = 'pending') = (completed_at IS NULL)),
  CHECK (status = 'pending' OR next_sync_at IS NULL)
);
CREATE INDEX refunds_by_payment ON refunds (payment_id, status);
CREATE INDEX refunds_due_sync ON refunds (next_sync_at) WHERE status = 'pending';

-- The refund state machine, mirrored from src/modules/refunds/refund-states.ts.
CREATE FUNCTION refunds_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.id <> OLD.id OR NEW.merchant_id <> OLD.merchant_id OR NEW.environment <> OLD.environment
     OR NEW.payment_id <> OLD.payment_id OR NEW.amount_minor <> OLD.amount_minor OR NEW.currency <> OLD.currency
     OR NEW.held_from <> OLD.held_from OR NEW.created_at <> OLD.created_at THEN
    RAISE EXCEPTION 'refund %: immutable column changed', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  IF NEW.status <> OLD.status AND NOT (OLD.status = 'pending' AND NEW.status IN ('succeeded', 'failed')) THEN
    RAISE EXCEPTION 'refund %: transition % -> % not allowed', OLD.id, OLD.status, NEW.status
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER refunds_guard_update BEFORE UPDATE ON refunds
  FOR EACH ROW EXECUTE FUNCTION refunds_guard_update();

-- Refunds may return what the payer paid (an over-payment included), never more: the bound was
-- the payment's amount.
ALTER TABLE payments DROP CONSTRAINT payments_check;
ALTER TABLE payments ADD CONSTRAINT payments_refunded_within_paid
  CHECK (amount_refunded_minor >= 0 AND amount_refunded_minor <= amount_paid_minor);

-- Why the provider took a succeeded payment back (chargeback, counter_reversal, or its code).
ALTER TABLE payments ADD COLUMN reversal_reason text;
