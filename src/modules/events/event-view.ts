/**
 * An event as stored (`events.payload`) and as it goes out, in the webhook body and in
 * `GET /event`. The two are the same JSON, so what a merchant reads back is what was signed.
 */
export interface StoredEvent {
  id: string;
  type: string;
  created_at: string;
  api_version: string;
  data: { object: Record<string, unknown>; previous_attributes: Record<string, unknown> };
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Puts the keys of `value` in the order of `template` (recursively), unknown keys after them.
 * jsonb stores objects with its own key order (shortest key first), so without this a payment
 * would come back as `{"id", "email", "amount", …}`; with it, the body reads like the API's
 * responses. The order is a pure function of the stored value: every retry sends the same bytes.
 */
export function reorderLike(value: unknown, template: unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => reorderLike(v, Array.isArray(template) ? template[0] : undefined));
  if (!isPlainObject(value)) return value;
  const shape = isPlainObject(template) ? template : {};
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(shape)) {
    if (Object.hasOwn(value, key)) out[key] = reorderLike(value[key], shape[key]);
  }
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(out, key)) out[key] = value[key];
  }
  return out;
}

/**
 * The event as it goes out. `template` is an object of the event's type in the API's key order
 * (the catalogue's example, `catalogue/event-examples.ts`, passed in by the caller).
 */
export function eventView(stored: StoredEvent, template: unknown): StoredEvent {
  return {
    id: stored.id,
    type: stored.type,
    created_at: stored.created_at,
    api_version: stored.api_version,
    data: {
      object: reorderLike(stored.data.object, template) as Record<string, unknown>,
      previous_attributes: stored.data.previous_attributes,
    },
  };
}

/** The exact bytes of a webhook body for this event. */
export function eventBody(stored: StoredEvent, template: unknown): string {
  return JSON.stringify(eventView(stored, template));
}
