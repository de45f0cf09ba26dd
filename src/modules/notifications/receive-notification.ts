import type { InboundNotification } from '../../connectors/core/connector.ts';
import type { ConnectorRegistry } from '../../connectors/core/registry.ts';
import type { Store } from '../../db/store.ts';
import type { Clock } from '../../lib/clock.ts';
import { newId } from '../../lib/ids.ts';
import type { Logger } from '../../lib/logger.ts';
import { insertNotification } from './notification-repo.ts';

/**
 * POST /provider/{connector}/callback without the HTTP: verify the signature over the exact bytes
 * (and its time window, so a captured notification cannot be replayed later), store the raw
 * notification once per provider event id, and acknowledge. Processing happens after the
 * acknowledgement (process-notifications.ts): the provider is never kept waiting on our database
 * work, and a crash after the acknowledgement loses nothing because the notification is stored.
 * A forged, tampered or stale notification is refused and stores nothing.
 */
export type ReceiveResult =
  | { kind: 'accepted'; notificationId: string; duplicate: boolean }
  | { kind: 'unknown_connector' }
  | { kind: 'rejected'; reason: 'missing_signature' | 'bad_signature' | 'stale_timestamp' }
  | { kind: 'malformed'; reason: string };

export interface ReceiveDeps {
  store: Store;
  clock: Clock;
  connectors: ConnectorRegistry;
  log: Logger;
}

export async function receiveNotification(
  deps: ReceiveDeps,
  connectorName: string,
  inbound: InboundNotification,
): Promise<ReceiveResult> {
  const connector = deps.connectors.get(connectorName);
  if (connector === undefined) return { kind: 'unknown_connector' };
  const now = deps.clock.now();
  const verified = connector.verifyNotification(inbound, now);
  if (!verified.ok) {
    deps.log.warn({ connector: connectorName, reason: verified.reason }, 'provider notification refused');
    return { kind: 'rejected', reason: verified.reason };
  }
  // Parsed here only for the event id (the dedupe key); processing parses it again from storage.
  const parsed = connector.parseRefundNotification?.(inbound.rawBody) ?? connector.parseNotification(inbound.rawBody);
  if (!parsed.ok) {
    deps.log.warn({ connector: connectorName, reason: parsed.reason }, 'signed provider notification is unreadable');
    return { kind: 'malformed', reason: parsed.reason };
  }
  const stored = await insertNotification(deps.store, {
    id: newId('notification', now.getTime()),
    connector: connectorName,
    providerEventId: parsed.eventId,
    rawBody: inbound.rawBody,
    headers: auditHeaders(inbound.headers),
    now,
  });
  return { kind: 'accepted', notificationId: stored.id, duplicate: stored.duplicate };
}

/** Headers kept with a stored notification: everything but credentials and cookies. */
function auditHeaders(headers: Readonly<Record<string, string | undefined>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && name !== 'authorization' && name !== 'cookie') out[name] = value.slice(0, 1000);
  }
  return out;
}
