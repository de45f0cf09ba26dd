-- 0006: settlement as recorded on the payment (product.md: "settled_at, fee and net"). The
-- settlement objects themselves and their ledger entries come with the settlement work; these
-- columns let refunds know whether a payment's money is still pending or already available.

ALTER TABLE payments
  ADD COLUMN settlement_id text,
  ADD COLUMN settled_at    timestamptz,
  ADD COLUMN fee_minor     bigint,
  ADD COLUMN net_minor     bigint,
  ADD CONSTRAINT payments_settlement_complete CHECK (
    (settled_at IS NULL AND settlement_id IS NULL AND fee_minor IS NULL AND net_minor IS NULL)
    OR (settled_at IS NOT NULL AND settlement_id IS NOT NULL AND fee_minor >= 0 AND net_minor = amount_minor - fee_minor)
  );
