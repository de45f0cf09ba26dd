-- 0014: a claimed webhook delivery's lease gets a column of its own, outside every index
-- (docs/decisions/0013-webhooks-outbox.md §2, docs/benchmarks.md "Issue 12, fourth session").
-- Until now the claim moved next_attempt_at, which the due index holds, so every claim was a
-- non-HOT update: a new entry in each of the table's six indexes and a dead one left behind in the
-- due index and the primary key until vacuum. A claim now sets only leased_until and the token, and
-- pages keep room for that new row version (fillfactor), so PostgreSQL can write it beside the old
-- one without touching an index (a HOT update).
--
-- A row claimed before this migration has no leased_until and its next_attempt_at in the future:
-- it comes back when that time passes, exactly as it would have.

ALTER TABLE webhook_deliveries ADD COLUMN leased_until timestamptz;
ALTER TABLE webhook_deliveries SET (fillfactor = 80);
