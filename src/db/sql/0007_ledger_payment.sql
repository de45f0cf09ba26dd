-- 0007: every journal entry names the payment whose money it moves (refund, reversal and
-- settlement entries too), so that "what of this payment is still pending for the merchant" is a
-- sum over postings, and a settlement moves exactly that (docs/money.md).

ALTER TABLE journal_entries ADD COLUMN payment_id text;
CREATE INDEX journal_entries_by_payment ON journal_entries (merchant_id, environment, payment_id);
