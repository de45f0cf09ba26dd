-- 0005 ledger: double-entry accounts, immutable journal entries and postings (docs/money.md).
-- Postings are signed minor units: debit positive, credit negative; every entry sums to zero per
-- currency, checked at commit by a deferred constraint trigger.

CREATE TABLE ledger_accounts (
  merchant_id   text NOT NULL REFERENCES merchants (id),
  environment   text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  currency      text NOT NULL CHECK (currency ~ '^[A-Z]{3}$'),
  kind          text NOT NULL CHECK (kind IN
                  ('provider_receivable', 'settlement_cash', 'merchant_pending', 'merchant_available', 'refunds_pending', 'fees')),
  -- Cached sum of this account's postings, updated in the posting transaction; verified against them.
  balance_minor bigint NOT NULL DEFAULT 0,
  created_at    timestamptz NOT NULL,
  updated_at    timestamptz NOT NULL,
  PRIMARY KEY (merchant_id, environment, currency, kind)
);

CREATE TABLE journal_entries (
  id          text PRIMARY KEY,
  merchant_id text NOT NULL,
  environment text NOT NULL,
  -- Idempotency of money movements: the same movement can only be posted once (an `exists` answer).
  entry_key   text NOT NULL,
  type        text NOT NULL CHECK (type IN ('capture', 'refund_hold', 'refund_post', 'refund_void', 'reversal', 'settlement')),
  object_type text NOT NULL,
  object_id   text NOT NULL,
  created_at  timestamptz NOT NULL,
  UNIQUE (merchant_id, environment, entry_key),
  UNIQUE (id, merchant_id, environment)
);
CREATE INDEX journal_entries_by_object ON journal_entries (object_id);

CREATE TABLE postings (
  entry_id     text NOT NULL,
  seq          smallint NOT NULL CHECK (seq >= 1),
  merchant_id  text NOT NULL,
  environment  text NOT NULL,
  currency     text NOT NULL,
  account_kind text NOT NULL,
  amount_minor bigint NOT NULL CHECK (amount_minor <> 0),
  PRIMARY KEY (entry_id, seq),
  -- A posting belongs to its entry's merchant and environment, and to an existing account.
  FOREIGN KEY (entry_id, merchant_id, environment) REFERENCES journal_entries (id, merchant_id, environment),
  FOREIGN KEY (merchant_id, environment, currency, account_kind) REFERENCES ledger_accounts (merchant_id, environment, currency, kind)
);
CREATE INDEX postings_by_account ON postings (merchant_id, environment, currency, account_kind);

CREATE FUNCTION postings_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM postings WHERE entry_id = NEW.entry_id GROUP BY currency HAVING sum(amount_minor) <> 0) THEN
    RAISE EXCEPTION 'journal entry % does not balance', NEW.entry_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END
$$;
CREATE CONSTRAINT TRIGGER postings_balanced AFTER INSERT ON postings
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION postings_balanced();

CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'journal entries and postings are immutable; post a correcting entry' USING ERRCODE = 'check_violation';
END
$$;
CREATE TRIGGER journal_entries_immutable BEFORE UPDATE OR DELETE ON journal_entries
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER postings_immutable BEFORE UPDATE OR DELETE ON postings
  FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
