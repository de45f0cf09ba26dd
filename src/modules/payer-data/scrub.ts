/**
 * What erasing means for one stored value (docs/payer-data.md, "What erasing means"). Pure
 * functions: the repo reads a value, these compute its erased form, the repo writes it back only
 * if it changed.
 */

/** What an erased e-mail address inside free text becomes. */
export const ERASED_MARKER = '[erased]';

/**
 * Keys whose value is the payer's personal data in our own objects (payments, checkouts, and
 * events and stored responses that carry them).
 */
export const VIEW_PERSONAL_KEYS: ReadonlySet<string> = new Set(['email']);

/**
 * Keys under which providers put the payer's personal data in the notifications they send us
 * (Midtrans `customer_details`, Xendit `mobile_number` and `customer`, …). `name` is not among
 * them: providers use it for the account holder we chose (the merchant's name), and the payer's
 * name always comes under a more specific key.
 */
export const PROVIDER_PERSONAL_KEYS: ReadonlySet<string> = new Set([
  'email',
  'email_address',
  'phone',
  'phone_number',
  'mobile_number',
  'mobile_phone',
  'first_name',
  'last_name',
  'given_names',
  'surname',
  'full_name',
  'payer_name',
  'customer_name',
  'customer',
  'customer_details',
  'billing_address',
  'shipping_address',
  'payer',
]);

export interface Erasure {
  /** The payer's e-mail addresses (as stored); every occurrence in text is replaced, in any case. */
  emails: readonly string[];
  /** Keys whose value becomes null, wherever they are (except inside `metadata`). */
  keys: ReadonlySet<string>;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces every occurrence of the e-mails in `text` (case-insensitively) with the marker. */
export function eraseInText(text: string, emails: readonly string[]): string {
  const nonEmpty = emails.filter((e) => e !== '');
  if (nonEmpty.length === 0) return text;
  const pattern = new RegExp(nonEmpty.map(escapeRegExp).join('|'), 'gi');
  return text.replace(pattern, ERASED_MARKER);
}

/** Like eraseInText, for a nullable column. */
export function eraseInNullableText(text: string | null, emails: readonly string[]): string | null {
  return text === null ? null : eraseInText(text, emails);
}

/**
 * The erased form of a JSON value: personal keys nulled, e-mails in strings replaced. `metadata`
 * is the merchant's map of strings: its keys are never nulled (the schema promises strings), only
 * e-mail addresses inside its values are replaced.
 */
export function eraseInJson(value: unknown, erasure: Erasure, insideMetadata = false): unknown {
  if (typeof value === 'string') return eraseInText(value, erasure.emails);
  if (Array.isArray(value)) return value.map((v) => eraseInJson(v, erasure, insideMetadata));
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (!insideMetadata && erasure.keys.has(key) && v !== null) out[key] = null;
    else out[key] = eraseInJson(v, erasure, insideMetadata || key === 'metadata');
  }
  return out;
}

/**
 * The erased form of a raw body we stored as text (a provider notification, a stored response):
 * parsed and erased as JSON when it is JSON, keeping its key order; otherwise the e-mails are
 * replaced in the text. Returns the input itself when nothing changed, so the caller can skip
 * the write (a repeated erasure writes nothing).
 */
export function eraseInRawBody(body: string, erasure: Erasure): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return eraseInText(body, erasure.emails);
  }
  const erased = eraseInJson(parsed, erasure);
  if (JSON.stringify(erased) === JSON.stringify(parsed)) return body;
  return JSON.stringify(erased);
}
