-- 0020 overview (docs/overview.md): day aggregates the dashboard's home page reads instead of
-- payments and refunds, kept by the overview-refresh job, so the page's cost does not grow with
-- the merchant's history. Every row is a recount of one UTC day from the source tables (never an
-- increment): recomputing a day twice changes nothing. Forward-only; PostgreSQL 15.

-- Payments by the UTC day they were created (their cohort), by what they became since.
CREATE TABLE overview_cohort_days (
  merchant_id     text NOT NULL,
  environment     text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  day             date NOT NULL,
  currency        text NOT NULL,
  -- '' where the payment has no channel (refused before one was chosen) or no attempt.
  channel         text NOT NULL,
  connector       text NOT NULL,
  created_count   bigint NOT NULL CHECK (created_count > 0),
  processing_count bigint NOT NULL,
  pending_count   bigint NOT NULL,
  succeeded_count bigint NOT NULL,
  failed_count    bigint NOT NULL,
  expired_count   bigint NOT NULL,
  canceled_count  bigint NOT NULL,
  reversed_count  bigint NOT NULL,
  -- Paid: succeeded_at set (succeeded, or reversed after); amount_minor of those, minor units.
  paid_count      bigint NOT NULL,
  paid_minor      bigint NOT NULL,
  late_count      bigint NOT NULL,
  late_minor      bigint NOT NULL,
  -- Time from creation to payment of the paid ones, counted in the fixed buckets of
  -- modules/overview/time-to-pay.ts (TTP_BUCKET_BOUNDS_S): exact integer counts.
  ttp_buckets     integer[] NOT NULL,
  PRIMARY KEY (merchant_id, environment, day, currency, channel, connector)
);

-- What happened on a UTC day: payments that succeeded that day, refunds that succeeded that day.
CREATE TABLE overview_activity_days (
  merchant_id    text NOT NULL,
  environment    text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  day            date NOT NULL,
  currency       text NOT NULL,
  paid_count     bigint NOT NULL,
  paid_minor     bigint NOT NULL,
  refunds_count  bigint NOT NULL,
  refunded_minor bigint NOT NULL,
  PRIMARY KEY (merchant_id, environment, day, currency)
);

-- The refresh job's cursor over events and when it last ran (the page's freshness note).
CREATE TABLE overview_refresh (
  id               text PRIMARY KEY CHECK (id = 'events'),
  cursor_at        timestamptz,
  last_run_at      timestamptz NOT NULL,
  last_duration_ms integer NOT NULL,
  days_recomputed  integer NOT NULL
);

-- The job's scan of new events, across merchants.
CREATE INDEX events_by_created ON events (created_at);
-- Recomputing one day's activity: payments paid that day, refunds completed that day.
CREATE INDEX payments_by_merchant_succeeded ON payments (merchant_id, environment, succeeded_at)
  WHERE succeeded_at IS NOT NULL;
CREATE INDEX refunds_by_merchant_completed ON refunds (merchant_id, environment, completed_at)
  WHERE status = 'succeeded';
