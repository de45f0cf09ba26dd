import type { Queryable } from '../../db/store.ts';
import type { DisabledReason, EndpointStatus, WebhookEndpoint } from './webhook-types.ts';
import type { Environment } from '../../kernel/index.ts';

/**
 * Data access for webhook endpoints. Every finder takes the merchant and the environment; a
 * deleted endpoint is found by nothing (it stays in the table so that its delivery history keeps
 * pointing at a row).
 */
interface EndpointRow {
  id: string;
  merchant_id: string;
  environment: Environment;
  url: string;
  description: string | null;
  enabled_events: string[];
  status: EndpointStatus;
  disabled_reason: DisabledReason | null;
  secret_ciphertext: string;
  previous_secret_ciphertext: string | null;
  previous_secret_expires_at: Date | null;
  failing_since: Date | null;
  version: number;
  created_at: Date;
  updated_at: Date;
  [key: string]: unknown;
}

const COLUMNS = `id, merchant_id, environment, url, description, enabled_events, status, disabled_reason, secret_ciphertext,
  previous_secret_ciphertext, previous_secret_expires_at, failing_since, version, created_at, updated_at`;

export function endpointFromRow(r: EndpointRow): WebhookEndpoint {
  return {
    id: r.id,
    merchantId: r.merchant_id,
    environment: r.environment,
    url: r.url,
    description: r.description,
    enabledEvents: r.enabled_events,
    status: r.status,
    disabledReason: r.disabled_reason,
    secretCiphertext: r.secret_ciphertext,
    previousSecretCiphertext: r.previous_secret_ciphertext,
    previousSecretExpiresAt: r.previous_secret_expires_at,
    failingSince: r.failing_since,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** Every column in table order: the insert writes them all, the update checks the first three and created_at. */
const rowValues = (e: WebhookEndpoint): unknown[] => [
  e.id,
  e.merchantId,
  e.environment,
  e.url,
  e.description,
  JSON.stringify(e.enabledEvents),
  e.status,
  e.disabledReason,
  e.secretCiphertext,
  e.previousSecretCiphertext,
  e.previousSecretExpiresAt,
  e.failingSince,
  e.version,
  e.createdAt,
  e.updatedAt,
];

export async function insertEndpoint(q: Queryable, e: WebhookEndpoint): Promise<void> {
  await q.query(
    `INSERT INTO webhook_endpoints (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
    rowValues(e),
  );
}

/** `forUpdate` locks the row until the transaction ends (read, change, write). */
export async function findEndpoint(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
  forUpdate = false,
): Promise<WebhookEndpoint | undefined> {
  const rows = await q.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND deleted_at IS NULL${
      forUpdate ? ' FOR UPDATE' : ''
    }`,
    [id, merchantId, environment],
  );
  return rows[0] === undefined ? undefined : endpointFromRow(rows[0]);
}

export async function listEndpoints(q: Queryable, merchantId: string, environment: Environment): Promise<WebhookEndpoint[]> {
  const rows = await q.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND deleted_at IS NULL
     ORDER BY created_at, id`,
    [merchantId, environment],
  );
  return rows.map(endpointFromRow);
}

export interface Tenant {
  merchantId: string;
  environment: Environment;
}

/** Enabled endpoints of several tenants at once (fan-out). */
export async function enabledEndpointsOf(q: Queryable, tenants: readonly Tenant[]): Promise<WebhookEndpoint[]> {
  if (tenants.length === 0) return [];
  const rows = await q.query<EndpointRow>(
    `SELECT ${COLUMNS} FROM webhook_endpoints
     WHERE (merchant_id, environment) IN (SELECT * FROM unnest($1::text[], $2::text[]))
       AND status = 'enabled' AND deleted_at IS NULL`,
    [tenants.map((t) => t.merchantId), tenants.map((t) => t.environment)],
  );
  return rows.map(endpointFromRow);
}

const COLUMN_NAMES = COLUMNS.split(',').map((c) => c.trim());

/**
 * For a statement that reads endpoints alongside other rows (the dispatcher's claim): every
 * endpoint column of `alias` as `ep_<column>` (a delivery row has its own `endpoint_id`).
 * `endpointFromPrefixedRow` reads them back.
 */
export function prefixedEndpointColumns(alias: string): string {
  return COLUMN_NAMES.map((c) => `${alias}.${c} AS ep_${c}`).join(', ');
}

/** The endpoint in a row read with `prefixedEndpointColumns`; undefined when the join found none. */
export function endpointFromPrefixedRow(row: Record<string, unknown>): WebhookEndpoint | undefined {
  if (row.ep_id === null || row.ep_id === undefined) return undefined;
  return endpointFromRow(Object.fromEntries(COLUMN_NAMES.map((c) => [c, row[`ep_${c}`]])) as EndpointRow);
}

/**
 * Writes a changed endpoint if nobody changed it in between (optimistic: `version` must still
 * be the one that was read). Returns false when the endpoint moved on or is gone.
 */
export async function updateEndpoint(q: Queryable, e: WebhookEndpoint, expectedVersion: number): Promise<boolean> {
  const rows = await q.query(
    `UPDATE webhook_endpoints SET url = $4, description = $5, enabled_events = $6, status = $7, disabled_reason = $8,
       secret_ciphertext = $9, previous_secret_ciphertext = $10, previous_secret_expires_at = $11, failing_since = $12,
       version = $13, updated_at = $15
     WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND created_at = $14 AND deleted_at IS NULL AND version = $16
     RETURNING id`,
    [...rowValues(e), expectedVersion],
  );
  return rows.length === 1;
}

export async function deleteEndpoint(
  q: Queryable,
  merchantId: string,
  environment: Environment,
  id: string,
  now: Date,
): Promise<boolean> {
  const rows = await q.query(
    `UPDATE webhook_endpoints SET deleted_at = $4, updated_at = $4
     WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND deleted_at IS NULL RETURNING id`,
    [id, merchantId, environment, now],
  );
  return rows.length === 1;
}

export async function countEndpoints(q: Queryable, merchantId: string, environment: Environment): Promise<number> {
  const rows = await q.query<{ n: bigint }>(
    'SELECT count(*) AS n FROM webhook_endpoints WHERE merchant_id = $1 AND environment = $2 AND deleted_at IS NULL',
    [merchantId, environment],
  );
  return Number(rows[0]?.n ?? 0n);
}

/**
 * Endpoint health after an attempt. Writes only on a change of state (first failure of a run, or
 * the first success after failures), so a busy healthy endpoint costs no extra row writes.
 */
export async function noteEndpointFailure(q: Queryable, t: Tenant & { id: string }, now: Date): Promise<void> {
  await q.query(
    `UPDATE webhook_endpoints SET failing_since = $4
     WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND failing_since IS NULL`,
    [t.id, t.merchantId, t.environment, now],
  );
}

export async function noteEndpointSuccess(q: Queryable, t: Tenant & { id: string }): Promise<void> {
  await q.query(
    `UPDATE webhook_endpoints SET failing_since = NULL
     WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND failing_since IS NOT NULL`,
    [t.id, t.merchantId, t.environment],
  );
}

/**
 * Disables an enabled endpoint on Tributary's own initiative (410, or failing since before
 * `failingBefore`). Returns the endpoint as it is now, or undefined when there was nothing to do
 * (already disabled, deleted, or — with `failingBefore` — not failing for long enough).
 */
export async function autoDisableEndpoint(
  q: Queryable,
  t: Tenant & { id: string },
  reason: 'gone' | 'failing',
  now: Date,
  failingBefore?: Date,
): Promise<WebhookEndpoint | undefined> {
  const rows = await q.query<EndpointRow>(
    `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $4, version = version + 1, updated_at = $5
     WHERE id = $1 AND merchant_id = $2 AND environment = $3 AND deleted_at IS NULL AND status = 'enabled'
       AND ($6::timestamptz IS NULL OR failing_since <= $6::timestamptz)
     RETURNING ${COLUMNS}`,
    [t.id, t.merchantId, t.environment, reason, now, failingBefore ?? null],
  );
  return rows[0] === undefined ? undefined : endpointFromRow(rows[0]);
}
