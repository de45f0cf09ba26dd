-- 0015: checkouts (docs/checkout.md). A checkout is the payment intent whose method the payer
-- chooses; each choice is an ordinary payment, listed in checkout_payments in order.

CREATE TABLE checkouts (
  id                   text PRIMARY KEY,
  merchant_id          text NOT NULL REFERENCES merchants (id),
  environment          text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  status               text NOT NULL CHECK (status IN ('open', 'completed', 'expired')),
  amount_minor         bigint NOT NULL CHECK (amount_minor > 0),
  currency             text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  reference_no         text NOT NULL,
  description          text,
  email                text,
  metadata             jsonb NOT NULL DEFAULT '{}'::jsonb,
  callback_url         text,
  channels             text[] NOT NULL CHECK (cardinality(channels) >= 1
                         AND channels <@ ARRAY['bank', 'ewallet', 'counter']::text[]),
  success_url          text,
  cancel_url           text,
  client_secret_hash   text NOT NULL,
  api_version          text NOT NULL,
  expires_at           timestamptz NOT NULL,
  current_payment_id   text,
  completed_payment_id text,
  select_lease_token   text,
  select_leased_until  timestamptz,
  version              integer NOT NULL CHECK (version >= 1),
  created_at           timestamptz NOT NULL,
  updated_at           timestamptz NOT NULL,
  closed_at            timestamptz,
  CHECK ((status = 'completed') = (completed_payment_id IS NOT NULL)),
  CHECK ((status = 'open') = (closed_at IS NULL))
);
CREATE INDEX checkouts_by_merchant_created ON checkouts (merchant_id, environment, created_at DESC, id DESC);
CREATE INDEX checkouts_open_by_expiry ON checkouts (expires_at) WHERE status = 'open';

-- open → completed | expired; nothing else, and nothing after.
CREATE FUNCTION checkouts_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.status <> NEW.status AND NOT (OLD.status = 'open' AND NEW.status IN ('completed', 'expired')) THEN
    RAISE EXCEPTION 'checkout % cannot go from % to %', OLD.id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status <> 'open' AND NEW IS DISTINCT FROM OLD THEN
    RAISE EXCEPTION 'checkout % is %: it does not change any more', OLD.id, OLD.status USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER checkouts_guard_update BEFORE UPDATE ON checkouts
  FOR EACH ROW EXECUTE FUNCTION checkouts_guard_update();

-- Every payment a selection made, in order. Written before the payment exists (its id is chosen
-- first), so no foreign key to payments: a crashed selection leaves a row naming a payment that
-- may never have been created, and the next selection cancels it if it was.
CREATE TABLE checkout_payments (
  checkout_id text NOT NULL REFERENCES checkouts (id),
  seq         integer NOT NULL CHECK (seq >= 1),
  payment_id  text NOT NULL UNIQUE,
  created_at  timestamptz NOT NULL,
  PRIMARY KEY (checkout_id, seq)
);
