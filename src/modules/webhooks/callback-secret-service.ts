import type { Queryable } from '../../db/store.ts';
import type { SecretBox } from '../../lib/secret-box.ts';
import {
  type CallbackSecretRecord,
  callbackSecretsOf,
  findCallbackSecret,
  insertCallbackSecretIfAbsent,
  markCallbackSecretRevealed,
  rotateCallbackSecret as writeRotation,
} from './callback-secret-repo.ts';
import type { Tenant } from './endpoint-repo.ts';
import type { WebhookDeps } from './endpoint-service.ts';
import { generateWebhookSecret } from './webhook-signature.ts';
import { callbackSecretContext, rotated } from './webhook-secrets.ts';
import { recordAudit } from '../audit/index.ts';
import type { Principal } from '../../kernel/index.ts';

/**
 * The merchant's callback secret signs what goes to a payment's `callback_url` (one per
 * merchant and environment: callback URLs come with each payment, so there is no endpoint to
 * hang a secret on). It exists from the first time anyone needs it; the merchant can read it
 * once (`GET /callback_secret`) and rotate it (`POST /callback_secret/rotate`, which shows the
 * new one once), with the old one still signing during the overlap.
 */
export const callbackSecretKey = (t: Tenant) => `${t.merchantId}:${t.environment}`;

async function ensure(q: Queryable, box: SecretBox, tenant: Tenant, now: Date): Promise<CallbackSecretRecord> {
  const existing = await findCallbackSecret(q, tenant);
  if (existing !== undefined) return existing;
  await insertCallbackSecretIfAbsent(q, tenant, box.seal(generateWebhookSecret(), callbackSecretContext(tenant)), now);
  const created = await findCallbackSecret(q, tenant);
  if (created === undefined) throw new Error('callback secret vanished after insert');
  return created;
}

/** Callback secrets for several tenants (the dispatcher), created where missing. */
export async function ensureCallbackSecrets(
  q: Queryable,
  box: SecretBox,
  tenants: readonly Tenant[],
  now: Date,
): Promise<Map<string, CallbackSecretRecord>> {
  const found = new Map((await callbackSecretsOf(q, tenants)).map((r) => [callbackSecretKey(r), r]));
  for (const t of tenants) {
    if (!found.has(callbackSecretKey(t))) found.set(callbackSecretKey(t), await ensure(q, box, t, now));
  }
  return found;
}

export interface RevealedCallbackSecret {
  record: CallbackSecretRecord;
  /** The secret in clear text, only for the one call that reveals it; null afterwards. */
  secret: string | null;
}

export async function readCallbackSecret(deps: WebhookDeps, tenant: Tenant): Promise<RevealedCallbackSecret> {
  const now = deps.clock.now();
  const record = await ensure(deps.store, deps.secretBox, tenant, now);
  // Only the caller whose UPDATE flips revealed_at sees the secret, even with concurrent reads.
  if (record.revealedAt === null && (await markCallbackSecretRevealed(deps.store, tenant, now))) {
    return {
      record: { ...record, revealedAt: now },
      secret: deps.secretBox.open(record.secretCiphertext, callbackSecretContext(tenant)),
    };
  }
  const current = (await findCallbackSecret(deps.store, tenant)) ?? record;
  return { record: current, secret: null };
}

export async function rotateCallbackSecret(
  deps: WebhookDeps,
  tenant: Principal,
  overlapMs: number,
): Promise<RevealedCallbackSecret> {
  const secret = generateWebhookSecret();
  const now = deps.clock.now();
  await ensure(deps.store, deps.secretBox, tenant, now);
  // Read and replace under the row lock: two concurrent rotations must not drop the secret one
  // of them already handed out.
  const record = await deps.store.transaction(async (tx) => {
    const current = await findCallbackSecret(tx, tenant, true);
    if (current === undefined) throw new Error('callback secret vanished');
    const next = rotated(current, deps.secretBox.seal(secret, callbackSecretContext(tenant)), now, overlapMs);
    const written = await writeRotation(tx, tenant, {
      secretCiphertext: next.secretCiphertext,
      previousSecretCiphertext: next.previousSecretCiphertext,
      previousExpiresAt: next.previousSecretExpiresAt,
      now,
    });
    await recordAudit(tx, tenant, {
      action: 'callback_secret.rotated',
      objectType: 'callback_secret',
      objectId: null,
      changes: { previous_secret_expires_at: next.previousSecretExpiresAt?.toISOString() ?? null },
      at: now,
    });
    return written;
  });
  if (record === undefined) throw new Error('callback secret vanished');
  return { record, secret };
}

export function callbackSecretView(r: RevealedCallbackSecret) {
  return {
    object: 'callback_secret' as const,
    environment: r.record.environment,
    secret: r.secret,
    revealed_at: r.record.revealedAt?.toISOString() ?? null,
    previous_secret_expires_at: r.record.previousSecretExpiresAt?.toISOString() ?? null,
    created_at: r.record.createdAt.toISOString(),
    rotated_at: r.record.rotatedAt?.toISOString() ?? null,
  };
}
