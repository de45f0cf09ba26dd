-- 0010: queue tables churn: every row is inserted, updated a few times and completed within
-- seconds. With the default thresholds (10 % of the table changed) their planner statistics lag
-- far behind under load, and the claim's plan is chosen for a table that no longer exists. Analyse
-- and vacuum them after a fixed number of changes instead (PostgreSQL's autovacuum; PGlite keeps
-- the setting and has no autovacuum).

ALTER TABLE webhook_deliveries SET (
  autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 2000,
  autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000
);
ALTER TABLE webhook_fanout_queue SET (
  autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 2000,
  autovacuum_vacuum_scale_factor = 0, autovacuum_vacuum_threshold = 5000
);
ALTER TABLE provider_notifications SET (
  autovacuum_analyze_scale_factor = 0, autovacuum_analyze_threshold = 2000
);
