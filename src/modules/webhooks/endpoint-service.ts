import type { Store } from '../../db/store.ts';
import { assert } from '../../lib/assert.ts';
import type { Clock } from '../../lib/clock.ts';
import type { ErrorCode, ErrorDetail, FieldIssue } from '../../lib/error-catalogue.ts';
import { newId } from '../../lib/ids.ts';
import { type Allowlist, checkOutboundUrl } from '../../lib/net/address-policy.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import { ALL_EVENTS, EVENT_TYPE_NAMES } from '../events/index.ts';
import { cancelPendingDeliveriesOf } from './delivery-repo.ts';
import {
  countEndpoints,
  deleteEndpoint as softDeleteEndpoint,
  findEndpoint,
  insertEndpoint,
  type Tenant,
  updateEndpoint as writeEndpoint,
} from './endpoint-repo.ts';
import { generateWebhookSecret } from './webhook-signature.ts';
import { endpointSecretContext, rotated } from './webhook-secrets.ts';
import type { EndpointStatus, WebhookEndpoint } from './webhook-types.ts';
import { recordAudit } from '../audit/index.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * Webhook endpoints: register, change, rotate the secret, delete. The signing secret is
 * generated here, returned once (create and rotate) and otherwise only stored sealed.
 */
export interface WebhookDeps {
  store: Store;
  clock: Clock;
  secretBox: SecretBox;
  allowlist: Allowlist;
}

export const MAX_ENDPOINTS_PER_ENVIRONMENT = 20;
export const MAX_ENABLED_EVENTS = 50;

export type Failure = { ok: false; code: ErrorCode; message: string; details: ErrorDetail[] };
export type Result<T> = ({ ok: true } & T) | Failure;

export const failure = (code: ErrorCode, message: string, details: ErrorDetail[] = []): Failure => ({
  ok: false,
  code,
  message,
  details,
});
const invalid = (issues: FieldIssue[]) => failure('invalid_request', 'The request has invalid fields.', issues);
const notFound = () => failure('resource_not_found', 'No such webhook endpoint.');

export interface EndpointPatch {
  url?: string;
  description?: string | null;
  enabledEvents?: string[];
  status?: EndpointStatus;
}

function checkUrl(raw: string, tenant: Tenant, allowlist: Allowlist, issues: FieldIssue[]): string | undefined {
  const check = checkOutboundUrl(raw, allowlist, { requireHttps: tenant.environment === 'production' });
  if (check.ok) return check.url.toString();
  issues.push({ field: 'url', issue: check.issue, message: check.message });
  return undefined;
}

/** Known types only (a typo would silently receive nothing), or `["*"]` alone for every type. */
export function checkEnabledEvents(types: readonly string[], issues: FieldIssue[]): string[] | undefined {
  if (types.length === 0) {
    issues.push({ field: 'enabled_events', issue: 'too_short', message: 'list at least one event type, or ["*"] for all' });
    return undefined;
  }
  if (types.includes(ALL_EVENTS)) {
    if (types.length === 1) return [ALL_EVENTS];
    issues.push({ field: 'enabled_events', issue: 'invalid_value', message: '"*" means every type: send it alone' });
    return undefined;
  }
  const unique = [...new Set(types)];
  const unknown = unique.filter((t) => !EVENT_TYPE_NAMES.includes(t));
  if (unknown.length > 0) {
    issues.push({
      field: 'enabled_events',
      issue: 'unknown_event_type',
      message: `unknown event type(s): ${unknown.slice(0, 5).join(', ')}; see docs/webhook-events.md`,
    });
    return undefined;
  }
  return unique;
}

/**
 * What an update changed, for the audit log: status and event filter with both values; the URL by
 * its host only (a path or query may carry a token), the description as changed or not.
 */
function endpointChanges(before: WebhookEndpoint, after: WebhookEndpoint): Record<string, unknown> {
  const changes: Record<string, unknown> = {};
  if (before.url !== after.url) changes['url_host'] = { from: new URL(before.url).host, to: new URL(after.url).host };
  if (before.description !== after.description) changes['description_changed'] = true;
  if (before.status !== after.status) changes['status'] = { from: before.status, to: after.status };
  if (before.enabledEvents.join(',') !== after.enabledEvents.join(',')) {
    changes['enabled_events'] = { from: before.enabledEvents, to: after.enabledEvents };
  }
  return changes;
}

/** A rotation names when the previous secret stops working, never a secret. */
const rotationChanges = (_before: WebhookEndpoint, after: WebhookEndpoint): Record<string, unknown> => ({
  previous_secret_expires_at: after.previousSecretExpiresAt?.toISOString() ?? null,
});

/** How a change is recorded in the audit log: its action and what it changed. */
interface ChangeAudit {
  action: 'webhook_endpoint.updated' | 'webhook_endpoint.secret_rotated';
  changes: (before: WebhookEndpoint, after: WebhookEndpoint) => Record<string, unknown>;
}
const UPDATED: ChangeAudit = { action: 'webhook_endpoint.updated', changes: endpointChanges };
const SECRET_ROTATED: ChangeAudit = { action: 'webhook_endpoint.secret_rotated', changes: rotationChanges };

export async function createEndpoint(
  deps: WebhookDeps,
  tenant: Principal,
  input: { url: string; description?: string | null; enabledEvents?: string[]; status?: EndpointStatus },
): Promise<Result<{ endpoint: WebhookEndpoint; secret: string }>> {
  const issues: FieldIssue[] = [];
  const url = checkUrl(input.url, tenant, deps.allowlist, issues);
  const enabledEvents = checkEnabledEvents(input.enabledEvents ?? [ALL_EVENTS], issues);
  if (url === undefined || enabledEvents === undefined) return invalid(issues);
  if ((await countEndpoints(deps.store, tenant.merchantId, tenant.environment)) >= MAX_ENDPOINTS_PER_ENVIRONMENT) {
    return failure(
      'webhook_endpoint_limit_reached',
      `At most ${MAX_ENDPOINTS_PER_ENVIRONMENT} webhook endpoints per environment; delete one first.`,
    );
  }
  const now = deps.clock.now();
  const id = newId('webhookEndpoint', now.getTime());
  const secret = generateWebhookSecret();
  const status = input.status ?? 'enabled';
  const endpoint: WebhookEndpoint = {
    id,
    merchantId: tenant.merchantId,
    environment: tenant.environment,
    url,
    description: input.description ?? null,
    enabledEvents,
    status,
    disabledReason: status === 'disabled' ? 'manual' : null,
    secretCiphertext: deps.secretBox.seal(secret, endpointSecretContext(id)),
    previousSecretCiphertext: null,
    previousSecretExpiresAt: null,
    failingSince: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
  };
  await deps.store.transaction(async (tx) => {
    await insertEndpoint(tx, endpoint);
    await recordAudit(tx, tenant, {
      action: 'webhook_endpoint.created',
      objectType: 'webhook_endpoint',
      objectId: id,
      changes: { url_host: new URL(url).host, enabled_events: enabledEvents, status },
      at: now,
    });
  });
  return { ok: true, endpoint, secret };
}

export async function getEndpoint(deps: WebhookDeps, tenant: Tenant, id: string): Promise<Result<{ endpoint: WebhookEndpoint }>> {
  const endpoint = await findEndpoint(deps.store, tenant.merchantId, tenant.environment, id);
  return endpoint === undefined ? notFound() : { ok: true, endpoint };
}

/**
 * Changes an endpoint under a row lock (read, change, write in one short transaction), so two
 * concurrent updates cannot lose each other's change. Disabling cancels its pending deliveries:
 * they would only be canceled at send time otherwise, and redelivery brings them back on demand.
 */
async function change(
  deps: WebhookDeps,
  tenant: Principal,
  id: string,
  audit: ChangeAudit,
  apply: (current: WebhookEndpoint, now: Date) => WebhookEndpoint,
): Promise<Result<{ endpoint: WebhookEndpoint }>> {
  return deps.store.transaction(async (tx) => {
    const current = await findEndpoint(tx, tenant.merchantId, tenant.environment, id, true);
    if (current === undefined) return notFound();
    const now = deps.clock.now();
    const next = { ...apply(current, now), version: current.version + 1, updatedAt: now };
    assert(await writeEndpoint(tx, next, current.version), `endpoint ${id} changed under its row lock`);
    if (current.status === 'enabled' && next.status === 'disabled') {
      await cancelPendingDeliveriesOf(tx, { ...tenant, endpointId: id }, 'endpoint_disabled', now);
    }
    await recordAudit(tx, tenant, {
      action: audit.action,
      objectType: 'webhook_endpoint',
      objectId: id,
      changes: audit.changes(current, next),
      at: now,
    });
    return { ok: true as const, endpoint: next };
  });
}

export async function updateEndpoint(
  deps: WebhookDeps,
  tenant: Principal,
  id: string,
  patch: EndpointPatch,
): Promise<Result<{ endpoint: WebhookEndpoint }>> {
  const issues: FieldIssue[] = [];
  const url = patch.url === undefined ? undefined : checkUrl(patch.url, tenant, deps.allowlist, issues);
  const enabledEvents = patch.enabledEvents === undefined ? undefined : checkEnabledEvents(patch.enabledEvents, issues);
  if (issues.length > 0) return invalid(issues);
  return change(deps, tenant, id, UPDATED, (current) => {
    const status = patch.status ?? current.status;
    const reenabled = current.status === 'disabled' && status === 'enabled';
    return {
      ...current,
      url: url ?? current.url,
      description: patch.description === undefined ? current.description : patch.description,
      enabledEvents: enabledEvents ?? current.enabledEvents,
      status,
      disabledReason: status === 'enabled' ? null : patch.status === 'disabled' ? 'manual' : current.disabledReason,
      // Re-enabling starts a fresh health record: the old failures were the reason it was off.
      failingSince: reenabled ? null : current.failingSince,
    };
  });
}

export async function rotateEndpointSecret(
  deps: WebhookDeps,
  tenant: Principal,
  id: string,
  overlapMs: number,
): Promise<Result<{ endpoint: WebhookEndpoint; secret: string }>> {
  const secret = generateWebhookSecret();
  const result = await change(deps, tenant, id, SECRET_ROTATED, (current, now) => ({
    ...current,
    ...rotated(current, deps.secretBox.seal(secret, endpointSecretContext(id)), now, overlapMs),
  }));
  return result.ok ? { ok: true, endpoint: result.endpoint, secret } : result;
}

export async function deleteEndpoint(deps: WebhookDeps, tenant: Principal, id: string): Promise<Result<object>> {
  return deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    if (!(await softDeleteEndpoint(tx, tenant.merchantId, tenant.environment, id, now))) return notFound();
    await cancelPendingDeliveriesOf(tx, { ...tenant, endpointId: id }, 'endpoint_deleted', now);
    await recordAudit(tx, tenant, { action: 'webhook_endpoint.deleted', objectType: 'webhook_endpoint', objectId: id, at: now });
    return { ok: true as const };
  });
}
