-- 0009: settlement batches, the lines a provider reported that we could not apply, the ingestion
-- cursor per connector, and reconciliations (docs/money.md "Settlement", "Reconciliation";
-- decision 0016).

-- A settled payment's net is what the provider paid of what it collected: the payer may have paid
-- more than the amount (an over-payment on a bank transfer), so net is paid − fee, not amount − fee.
ALTER TABLE payments DROP CONSTRAINT payments_settlement_complete;
ALTER TABLE payments ADD CONSTRAINT payments_settlement_complete CHECK (
  (settled_at IS NULL AND settlement_id IS NULL AND fee_minor IS NULL AND net_minor IS NULL)
  OR (settled_at IS NOT NULL AND settlement_id IS NOT NULL AND fee_minor >= 0 AND net_minor = amount_paid_minor - fee_minor)
);

-- One batch: the lines of one ingestion run for one merchant × environment × connector × currency.
CREATE TABLE settlements (
  id            text PRIMARY KEY,
  merchant_id   text NOT NULL REFERENCES merchants (id),
  environment   text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  connector     text NOT NULL,
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  gross_minor   bigint NOT NULL CHECK (gross_minor >= 0),
  fee_minor     bigint NOT NULL CHECK (fee_minor >= 0),
  net_minor     bigint NOT NULL,
  payment_count integer NOT NULL CHECK (payment_count >= 1),
  -- The earliest and latest provider settlement time of its lines.
  period_start  timestamptz NOT NULL,
  period_end    timestamptz NOT NULL,
  created_at    timestamptz NOT NULL,
  CHECK (net_minor = gross_minor - fee_minor),
  CHECK (period_start <= period_end),
  UNIQUE (id, merchant_id, environment)
);
CREATE INDEX settlements_by_merchant_created ON settlements (merchant_id, environment, created_at DESC, id DESC);

CREATE TABLE settlement_lines (
  settlement_id      text NOT NULL,
  merchant_id        text NOT NULL,
  environment        text NOT NULL,
  -- A payment settles once.
  payment_id         text NOT NULL UNIQUE REFERENCES payments (id),
  attempt_id         text NOT NULL,
  provider_reference text NOT NULL,
  gross_minor        bigint NOT NULL CHECK (gross_minor > 0),
  fee_minor          bigint NOT NULL CHECK (fee_minor >= 0),
  net_minor          bigint NOT NULL,
  settled_at         timestamptz NOT NULL,
  CHECK (net_minor = gross_minor - fee_minor),
  FOREIGN KEY (settlement_id, merchant_id, environment) REFERENCES settlements (id, merchant_id, environment)
);
CREATE INDEX settlement_lines_by_settlement ON settlement_lines (settlement_id);
CREATE INDEX settlement_lines_by_settled ON settlement_lines (merchant_id, environment, settled_at);

-- The totals of a batch are the sums of its lines (checked at commit: lines are inserted after it).
CREATE FUNCTION settlement_totals_match() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  gross bigint;
  fee   bigint;
  n     integer;
BEGIN
  SELECT coalesce(sum(gross_minor), 0), coalesce(sum(fee_minor), 0), count(*)::integer INTO gross, fee, n
    FROM settlement_lines WHERE settlement_id = NEW.settlement_id;
  IF NOT EXISTS (
    SELECT 1 FROM settlements s
    WHERE s.id = NEW.settlement_id AND s.gross_minor = gross AND s.fee_minor = fee AND s.payment_count = n
  ) THEN
    RAISE EXCEPTION 'settlement %: totals differ from its lines', NEW.settlement_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER settlement_lines_totals AFTER INSERT ON settlement_lines
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION settlement_totals_match();

-- Report lines the ingestion did not apply (unknown reference, amount differs, payment not
-- succeeded, …): kept for operators; reconciliation reports them to the merchant.
CREATE TABLE settlement_exceptions (
  connector          text NOT NULL,
  provider_reference text NOT NULL,
  attempt_id         text NOT NULL,
  settled_at         timestamptz NOT NULL,
  kind               text NOT NULL CHECK (kind IN
                       ('unknown_reference', 'amount_mismatch', 'currency_mismatch', 'not_succeeded', 'already_settled')),
  merchant_id        text,
  environment        text,
  payment_id         text,
  gross_minor        bigint NOT NULL,
  fee_minor          bigint NOT NULL,
  currency           text NOT NULL,
  detail             text NOT NULL,
  created_at         timestamptz NOT NULL,
  PRIMARY KEY (connector, provider_reference, settled_at, kind)
);

-- Where the next ingestion of a connector's report starts (the provider's settlement time).
CREATE TABLE settlement_cursors (
  connector     text PRIMARY KEY,
  cursor_at     timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL
);

CREATE TABLE reconciliations (
  id               text PRIMARY KEY,
  merchant_id      text NOT NULL REFERENCES merchants (id),
  environment      text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  connector        text NOT NULL,
  period_from      timestamptz NOT NULL,
  period_to        timestamptz NOT NULL,
  -- Hash of the compared inputs (the report's lines for this merchant and our settled payments):
  -- the same inputs answer the same reconciliation.
  inputs_hash      text NOT NULL,
  status           text NOT NULL CHECK (status IN ('matched', 'discrepancies')),
  report_lines     integer NOT NULL CHECK (report_lines >= 0),
  matched_count    integer NOT NULL CHECK (matched_count >= 0),
  discrepancy_count integer NOT NULL CHECK (discrepancy_count >= 0),
  counts           jsonb NOT NULL,
  api_version      text NOT NULL,
  created_at       timestamptz NOT NULL,
  CHECK (period_from < period_to),
  CHECK ((status = 'matched') = (discrepancy_count = 0)),
  UNIQUE (merchant_id, environment, connector, period_from, period_to, inputs_hash),
  UNIQUE (id, merchant_id, environment)
);
CREATE INDEX reconciliations_by_merchant_created ON reconciliations (merchant_id, environment, created_at DESC, id DESC);

CREATE TABLE reconciliation_lines (
  reconciliation_id  text NOT NULL,
  merchant_id        text NOT NULL,
  environment        text NOT NULL,
  seq                integer NOT NULL CHECK (seq >= 1),
  result             text NOT NULL CHECK (result IN ('matched', 'missing_in_ours', 'missing_in_report', 'amount_mismatch',
                       'currency_mismatch', 'duplicate', 'unknown_reference', 'late')),
  payment_id         text,
  provider_reference text,
  report_currency    text,
  report_gross_minor bigint,
  report_fee_minor   bigint,
  report_net_minor   bigint,
  report_settled_at  timestamptz,
  our_currency       text,
  our_gross_minor    bigint,
  our_fee_minor      bigint,
  our_net_minor      bigint,
  our_settled_at     timestamptz,
  settlement_id      text,
  PRIMARY KEY (reconciliation_id, seq),
  FOREIGN KEY (reconciliation_id, merchant_id, environment) REFERENCES reconciliations (id, merchant_id, environment)
);
