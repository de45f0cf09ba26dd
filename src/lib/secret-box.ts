import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Encryption at rest for secrets we must be able to read back (webhook signing secrets: unlike
 * API keys, which are only ever compared, a signing secret is needed in clear text to sign).
 *
 * AES-256-GCM under a key derived with HKDF-SHA256 from the deployment secret and a purpose
 * label, so the same TRIBUTARY_SECRET never keys two different things. Every value is bound to
 * its row by the additional authenticated data (`context`, e.g. the endpoint id): a ciphertext
 * copied onto another row does not decrypt. Format: `v1.<iv>.<ciphertext>.<tag>` (base64url),
 * the version leaving room for re-keying later.
 *
 * Changing TRIBUTARY_SECRET makes stored secrets unreadable (and every API key invalid): it is a
 * deployment identity, not something to rotate casually.
 */
export interface SecretBox {
  seal(plaintext: string, context: string): string;
  /** Throws when the value was tampered with, belongs to another context or another key. */
  open(sealed: string, context: string): string;
}

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class SecretBoxError extends Error {
  override name = 'SecretBoxError';
}

export function createSecretBox(deploymentSecret: string, purpose: string): SecretBox {
  const key = Buffer.from(hkdfSync('sha256', deploymentSecret, Buffer.alloc(0), `tributary/${purpose}`, 32));
  return {
    seal(plaintext, context) {
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(context, 'utf8'));
      const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      const tag = cipher.getAuthTag();
      return ['v1', iv.toString('base64url'), ciphertext.toString('base64url'), tag.toString('base64url')].join('.');
    },
    open(sealed, context) {
      const [version, ivText, ctText, tagText, ...rest] = sealed.split('.');
      if (version !== 'v1' || ivText === undefined || ctText === undefined || tagText === undefined || rest.length > 0) {
        throw new SecretBoxError('not a sealed secret');
      }
      const iv = Buffer.from(ivText, 'base64url');
      const tag = Buffer.from(tagText, 'base64url');
      if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new SecretBoxError('not a sealed secret');
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
        decipher.setAAD(Buffer.from(context, 'utf8'));
        decipher.setAuthTag(tag);
        return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString('utf8');
      } catch (error) {
        throw new SecretBoxError('sealed secret does not open with this key and context', { cause: error });
      }
    },
  };
}
