-- 0022: queue indexes a statement by primary key cannot use (docs/decisions/0024-queue-indexes.md).
--
-- A partial index over the rows still in some state (open payments, issued attempts, due
-- deliveries) is a queue: it empties and fills again. If the statistics were taken while it was
-- empty, PostgreSQL costs it at zero rows however far it has grown since, and a statement that
-- names one row by its primary key and its status (which proves the index's predicate) was planned
-- as a scan of the whole queue filtered by id — measured: the create's second transaction scanned
-- 2,000–5,000 open payments per create on a store preloaded with history.
--
-- Each queue index now also requires its first key column to be non-null. The queue's own queries
-- prove that from their range on the column (`expires_at <= $1` is strict); a statement by id says
-- nothing of the column and no longer matches. No row leaves an index: each query that used one
-- already compared that column, and none of these rows has it null.
--
-- Rebuilding reads each table once (seconds per million rows) while holding its write lock; the
-- history indexes (finished keys, completed deliveries, succeeded refunds, payments due for
-- erasure) are left as they are: they are not empty after the first day's traffic.

-- Live reference numbers: not a queue, but empty on a store whose history holds no live payment
-- (a sandbox where every payment was canceled or expired), and a pending payment's update by id
-- proves its predicate too. Still unique per merchant; reference_no is never null.
DROP INDEX payments_live_reference_no;
CREATE UNIQUE INDEX payments_live_reference_no ON payments (merchant_id, environment, reference_no)
  WHERE status IN ('processing', 'pending', 'succeeded') AND reference_no IS NOT NULL;

DROP INDEX payments_open_by_expiry;
CREATE INDEX payments_open_by_expiry ON payments (expires_at)
  WHERE status IN ('processing', 'pending') AND expires_at IS NOT NULL;

DROP INDEX payment_attempts_due_sync;
CREATE INDEX payment_attempts_due_sync ON payment_attempts (next_sync_at)
  WHERE status = 'issued' AND next_sync_at IS NOT NULL;

DROP INDEX provider_notifications_due;
CREATE INDEX provider_notifications_due ON provider_notifications (next_attempt_at, arrival)
  WHERE status = 'received' AND next_attempt_at IS NOT NULL;

DROP INDEX webhook_deliveries_due;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at)
  WHERE status = 'pending' AND next_attempt_at IS NOT NULL;

DROP INDEX webhook_deliveries_pending_by_endpoint;
CREATE INDEX webhook_deliveries_pending_by_endpoint ON webhook_deliveries (endpoint_id)
  WHERE status = 'pending' AND endpoint_id IS NOT NULL;

DROP INDEX refunds_due_sync;
CREATE INDEX refunds_due_sync ON refunds (next_sync_at)
  WHERE status = 'pending' AND next_sync_at IS NOT NULL;

DROP INDEX checkouts_open_by_expiry;
CREATE INDEX checkouts_open_by_expiry ON checkouts (expires_at)
  WHERE status = 'open' AND expires_at IS NOT NULL;
