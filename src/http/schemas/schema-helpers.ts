import { type Static, type TSchema, Type } from '@sinclair/typebox';

/**
 * Small TypeBox helpers that keep validation errors to one per field: a string enum is one
 * `enum` keyword (a union of literals would report one error per literal), and a nullable field is
 * `type: [t, "null"]` rather than an `anyOf`.
 */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

export function Nullable<T extends TSchema>(schema: T) {
  const s = schema as unknown as Record<string, unknown>;
  const type = s['type'];
  const out: Record<string, unknown> = { ...s, type: Array.isArray(type) ? [...type, 'null'] : [type, 'null'] };
  if (Array.isArray(s['enum'])) out['enum'] = [...(s['enum'] as unknown[]), null];
  return Type.Unsafe<Static<T> | null>(out);
}

/**
 * Rules of request fields that JSON Schema can state, stated once (the document publishes them;
 * validation.ts maps their failures to the same issue codes the domain checks use).
 */
export const REQUEST_PATTERNS = {
  /** ISO 4217 alpha-3 in upper case; whether the code is an active one is `unknown_currency`. */
  currency: '^[A-Z]{3}$',
  /** Free text without the NUL character (U+0000): `invalid_character`. */
  noNul: '^[^\\u0000]*$',
  /**
   * An e-mail address whose domain has at least one dot (the server's rule, ajv-formats' full
   * `email`; a bare `user@localhost` is refused), letters in either case.
   */
  email:
    "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\\.)+[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$",
} as const;

/** The outbound-URL refusals (docs/webhooks.md), named in every URL field's description. */
export const URL_RULES =
  'An absolute http(s) URL (`invalid_url`, `unsupported_scheme`); https in production (`https_required`); no credentials (`credentials_in_url`), default ports only (`port_not_allowed`), public addresses only (`private_address`).';

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
