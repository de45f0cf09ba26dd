-- 0011: settlement exceptions become objects (docs/money.md "Settlement exceptions"): an id that
-- the API and the CLI name them by, and an operator's resolution. Rows recorded before this get an
-- id derived from their primary key (Crockford base32 digits 0-9A-F), so that it never changes.

ALTER TABLE settlement_exceptions ADD COLUMN id text;
UPDATE settlement_exceptions
  SET id = 'stx_' || upper(substr(md5(connector || '|' || provider_reference || '|' || kind || '|' ||
             extract(epoch FROM settled_at)::text), 1, 26))
  WHERE id IS NULL;
ALTER TABLE settlement_exceptions ALTER COLUMN id SET NOT NULL;
CREATE UNIQUE INDEX settlement_exceptions_id ON settlement_exceptions (id);

ALTER TABLE settlement_exceptions ADD COLUMN resolved_at timestamptz;
ALTER TABLE settlement_exceptions ADD COLUMN resolution text;
ALTER TABLE settlement_exceptions ADD CONSTRAINT settlement_exceptions_resolution
  CHECK ((resolved_at IS NULL) = (resolution IS NULL) AND (resolution IS NULL OR length(resolution) BETWEEN 1 AND 500));

-- A merchant's list, newest first (the same cursor rules as every list: created_at, then id).
CREATE INDEX settlement_exceptions_merchant ON settlement_exceptions (merchant_id, environment, created_at, id);
