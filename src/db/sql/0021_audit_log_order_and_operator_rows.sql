-- 0021: the audit log's stable order (docs/audit-log.md). Rows written in the same millisecond
-- have ids in no particular order among themselves; `seq` numbers them in insert order, and the
-- lists page by it, newest first. merchant_id becomes nullable: the operator resolves settlement
-- exceptions no merchant owns (a report line nobody's payment matches); those rows are no merchant's,
-- the API never shows them, `tributary audit` does.
ALTER TABLE audit_log ALTER COLUMN merchant_id DROP NOT NULL;
ALTER TABLE audit_log ADD COLUMN seq bigint GENERATED ALWAYS AS IDENTITY;
CREATE UNIQUE INDEX audit_log_seq ON audit_log (seq);
DROP INDEX audit_log_by_merchant;
DROP INDEX audit_log_by_object;
DROP INDEX audit_log_by_actor;
CREATE INDEX audit_log_by_merchant ON audit_log (merchant_id, seq);
CREATE INDEX audit_log_by_action ON audit_log (merchant_id, action, seq);
CREATE INDEX audit_log_by_object ON audit_log (merchant_id, object_id, seq) WHERE object_id IS NOT NULL;
CREATE INDEX audit_log_by_actor ON audit_log (merchant_id, actor_id, seq) WHERE actor_id IS NOT NULL;
