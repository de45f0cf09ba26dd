-- 0017: payer data erasure (docs/payer-data.md). The payer's e-mail and other personal fields are
-- erased in place, by POST /payment/{id}/erase_payer_data or the payer-data-retention job;
-- payer_data_erased_at records when. Amounts, references, statuses and the ledger never change.

ALTER TABLE payments ADD COLUMN payer_data_erased_at timestamptz;
ALTER TABLE checkouts ADD COLUMN payer_data_erased_at timestamptz;
-- A notification stored after its payment's erasure (a provider's late report) is erased by the
-- job's second pass; this column says which ones are done.
ALTER TABLE provider_notifications ADD COLUMN payer_data_erased_at timestamptz;

-- The retention job's candidates: final payments not erased yet, oldest last change first.
CREATE INDEX payments_payer_data_due ON payments (updated_at, id)
  WHERE payer_data_erased_at IS NULL AND status NOT IN ('processing', 'pending');

-- Stored answers of a payment's or checkout's keyed operations, found by the resource they made
-- (the existing index covers started keys only, for the creation completer).
CREATE INDEX idempotency_keys_finished_by_resource ON idempotency_keys (resource_id) WHERE status = 'finished';

-- Events stay immutable, with one exception: the erasure rewrites a stored payload (the personal
-- fields nulled), inside a transaction that said so (set_config('tributary.payer_data_erasure',
-- 'on', true)), and nothing but the payload may change.
CREATE OR REPLACE FUNCTION events_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND current_setting('tributary.payer_data_erasure', true) = 'on'
     AND NEW.id = OLD.id AND NEW.merchant_id = OLD.merchant_id AND NEW.environment = OLD.environment
     AND NEW.type = OLD.type AND NEW.object_type = OLD.object_type AND NEW.object_id = OLD.object_id
     AND NEW.object_version = OLD.object_version AND NEW.api_version = OLD.api_version
     AND NEW.created_at = OLD.created_at
     AND NEW.payload->>'id' = OLD.payload->>'id' AND NEW.payload->>'type' = OLD.payload->>'type' THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'events are immutable' USING ERRCODE = 'check_violation';
END
$$;

-- open → completed | expired; nothing else, and after that only the erasure of the payer's data:
-- email to NULL, description and metadata scrubbed, payer_data_erased_at set once, version + 1.
CREATE OR REPLACE FUNCTION checkouts_guard_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rest checkouts%ROWTYPE;
BEGIN
  IF OLD.status <> NEW.status AND NOT (OLD.status = 'open' AND NEW.status IN ('completed', 'expired')) THEN
    RAISE EXCEPTION 'checkout % cannot go from % to %', OLD.id, OLD.status, NEW.status USING ERRCODE = 'check_violation';
  END IF;
  IF OLD.status <> 'open' AND NEW IS DISTINCT FROM OLD THEN
    rest := NEW;
    rest.email := OLD.email;
    rest.description := OLD.description;
    rest.metadata := OLD.metadata;
    rest.payer_data_erased_at := OLD.payer_data_erased_at;
    rest.version := OLD.version;
    rest.updated_at := OLD.updated_at;
    IF OLD.payer_data_erased_at IS NOT NULL OR NEW.payer_data_erased_at IS NULL OR NEW.email IS NOT NULL
       OR NEW.version <> OLD.version + 1 OR rest IS DISTINCT FROM OLD THEN
      RAISE EXCEPTION 'checkout % is %: it does not change any more', OLD.id, OLD.status USING ERRCODE = 'check_violation';
    END IF;
  END IF;
  RETURN NEW;
END
$$;
