-- 0016: payment links (docs/checkout.md, section 8). A reusable link whose every visit creates a
-- checkout; payment_link_checkouts lists the visits in order and is what limits the uses.

CREATE TABLE payment_links (
  id                  text PRIMARY KEY,
  merchant_id         text NOT NULL REFERENCES merchants (id),
  environment         text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  active              boolean NOT NULL,
  amount_minor        bigint CHECK (amount_minor > 0),
  amount_min_minor    bigint CHECK (amount_min_minor > 0),
  amount_max_minor    bigint,
  currency            text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  description         text,
  channels            text[] CHECK (channels IS NULL OR (cardinality(channels) >= 1
                        AND channels <@ ARRAY['bank', 'ewallet', 'counter']::text[])),
  success_url         text,
  cancel_url          text,
  max_uses            integer CHECK (max_uses IS NULL OR max_uses >= 1),
  expires_at          timestamptz,
  checkout_expires_in integer NOT NULL CHECK (checkout_expires_in BETWEEN 300 AND 604800),
  api_version         text NOT NULL,
  version             integer NOT NULL CHECK (version >= 1),
  created_at          timestamptz NOT NULL,
  updated_at          timestamptz NOT NULL,
  deactivated_at      timestamptz,
  -- Exactly one shape: a fixed amount, or bounds the payer's amount must fall within.
  CHECK (
    (amount_minor IS NOT NULL AND amount_min_minor IS NULL AND amount_max_minor IS NULL)
    OR (amount_minor IS NULL AND amount_min_minor IS NOT NULL AND amount_max_minor IS NOT NULL
        AND amount_min_minor <= amount_max_minor)
  ),
  CHECK (active = (deactivated_at IS NULL))
);
CREATE INDEX payment_links_by_merchant_created ON payment_links (merchant_id, environment, created_at DESC, id DESC);

-- active → inactive, never back.
CREATE FUNCTION payment_links_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT OLD.active AND NEW.active THEN
    RAISE EXCEPTION 'payment link % is inactive: it cannot be activated again', OLD.id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER payment_links_guard_update BEFORE UPDATE ON payment_links
  FOR EACH ROW EXECUTE FUNCTION payment_links_guard_update();

-- One row per visit, written under the link's row lock before the checkout exists (its id is
-- chosen first), so no foreign key to checkouts: a crash between the two leaves a claim naming a
-- checkout that was never written, which holds its use only until reserved_until.
CREATE TABLE payment_link_checkouts (
  payment_link_id text NOT NULL REFERENCES payment_links (id),
  seq             integer NOT NULL CHECK (seq >= 1),
  checkout_id     text NOT NULL UNIQUE,
  amount_minor    bigint NOT NULL CHECK (amount_minor > 0),
  reserved_until  timestamptz NOT NULL,
  -- The hosted link page's form names its visit: a second post of the same form (a double click,
  -- a reload) finds this claim instead of taking another use.
  visit_token     text CHECK (visit_token IS NULL OR length(visit_token) BETWEEN 16 AND 64),
  created_at      timestamptz NOT NULL,
  PRIMARY KEY (payment_link_id, seq),
  UNIQUE (payment_link_id, visit_token)
);
