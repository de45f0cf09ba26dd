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

export const Timestamp = (description: string) => Type.String({ format: 'date-time', description });
