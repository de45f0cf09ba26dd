-- 0012: money from a late payment resolved refund_required enters the ledger and can be refunded
-- (docs/money.md "Late payment money"). A liability account for what is owed to payers, a journal
-- entry type for it, refunds held from it, and the provider reference the late money arrived on
-- (a failed-over attempt was never issued, so its own provider_reference stays null).

ALTER TABLE ledger_accounts DROP CONSTRAINT ledger_accounts_kind_check;
ALTER TABLE ledger_accounts ADD CONSTRAINT ledger_accounts_kind_check CHECK (kind IN
  ('provider_receivable', 'settlement_cash', 'merchant_pending', 'merchant_available', 'refunds_pending', 'fees',
   'payer_refund_due'));

ALTER TABLE journal_entries DROP CONSTRAINT journal_entries_type_check;
ALTER TABLE journal_entries ADD CONSTRAINT journal_entries_type_check CHECK (type IN
  ('capture', 'refund_hold', 'refund_post', 'refund_void', 'reversal', 'settlement', 'late_payment'));

ALTER TABLE refunds DROP CONSTRAINT refunds_held_from_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_held_from_check
  CHECK (held_from IN ('merchant_pending', 'merchant_available', 'payer_refund_due'));

ALTER TABLE payment_attempts ADD COLUMN late_provider_reference text;
