import type { SecretBox } from '../../lib/secret-box.ts';
import type { Tenant } from './endpoint-repo.ts';

/**
 * Where signing secrets are sealed and opened. The context binds each ciphertext to its owner,
 * so a ciphertext copied onto another endpoint or merchant does not open.
 */
export const SECRET_BOX_PURPOSE = 'webhook-signing-secrets/v1';

export const endpointSecretContext = (endpointId: string) => `webhook_endpoint:${endpointId}`;
export const callbackSecretContext = (t: Tenant) => `callback_secret:${t.merchantId}:${t.environment}`;

export interface SealedSecrets {
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
}

/** The secrets to sign with at `now`: the current one first, the previous one while its overlap lasts. */
export function signingSecrets(box: SecretBox, sealed: SealedSecrets, context: string, now: Date): string[] {
  const secrets = [box.open(sealed.secretCiphertext, context)];
  if (
    sealed.previousSecretCiphertext !== null &&
    sealed.previousSecretExpiresAt !== null &&
    sealed.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(box.open(sealed.previousSecretCiphertext, context));
  }
  return secrets;
}

/** Rotation: the current secret becomes the previous one for `overlapMs` (0: retired at once). */
export function rotated(sealed: SealedSecrets, newCiphertext: string, now: Date, overlapMs: number): SealedSecrets {
  return {
    secretCiphertext: newCiphertext,
    previousSecretCiphertext: overlapMs > 0 ? sealed.secretCiphertext : null,
    previousSecretExpiresAt: overlapMs > 0 ? new Date(now.getTime() + overlapMs) : null,
  };
}

export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;
export const MAX_ROTATION_OVERLAP_SECONDS = 7 * 24 * 3600;
