import { type TSchema, Type } from '@sinclair/typebox';
import { EVENT_TYPES } from '../../modules/events/event-types.ts';
import { DEFAULT_ROTATION_OVERLAP_SECONDS, MAX_ROTATION_OVERLAP_SECONDS } from '../../modules/webhooks/webhook-secrets.ts';
import { Nullable, StringEnum, Timestamp, URL_RULES } from './schema-helpers.ts';
import { exampleEvent } from '../../catalogue/event-examples.ts';

/**
 * Schemas of the webhook resources (endpoints, events, deliveries, the callback secret) and the
 * `webhooks` section of the OpenAPI document: one entry per event type, built from the same
 * catalogue the endpoint filters use.
 */
const ENDPOINT_PROPERTIES = {
  id: Type.String({ description: '`we_…`' }),
  object: Type.Literal('webhook_endpoint'),
  environment: StringEnum(['sandbox', 'production'] as const),
  url: Type.String({ description: 'Where events are POSTed. https in production.' }),
  description: Nullable(Type.String()),
  enabled_events: Type.Array(Type.String(), { description: 'Event types sent to this endpoint; `["*"]` is every type.' }),
  status: StringEnum(['enabled', 'disabled'] as const),
  disabled_reason: Nullable(
    StringEnum(['manual', 'gone', 'failing'] as const, {
      description: '`manual`: you disabled it; `gone`: it answered 410; `failing`: every attempt failed for 5 days.',
    }),
  ),
  failing_since: Nullable(Timestamp('Start of the current run of failed attempts; null when the last attempt succeeded.')),
  previous_secret_expires_at: Nullable(Timestamp('Until then, requests are also signed with the previous secret.')),
  version: Type.Integer({ minimum: 1 }),
  created_at: Timestamp('Creation time.'),
  updated_at: Timestamp('Last change.'),
};

export const WebhookEndpointSchema = Type.Object(ENDPOINT_PROPERTIES, { $id: 'WebhookEndpoint', additionalProperties: false });

export const WebhookEndpointWithSecretSchema = Type.Object(
  {
    ...ENDPOINT_PROPERTIES,
    secret: Type.String({ description: 'The signing secret (`whsec_…`). Shown only in this answer: store it now.' }),
  },
  { $id: 'WebhookEndpointWithSecret', additionalProperties: false },
);

const EnabledEventsField = Type.Array(Type.String({ minLength: 1, maxLength: 100 }), {
  minItems: 1,
  maxItems: 50,
  description:
    'Event types to receive (see docs/webhook-events.md; a type that does not exist is `unknown_event_type`), or `["*"]` (the default) for every type, including future ones; `"*"` must be sent alone (`invalid_value`).',
});

const EndpointUrlField = Type.String({
  minLength: 1,
  maxLength: 2048,
  format: 'uri',
  description: `Where events are POSTed. ${URL_RULES}`,
});

export const CreateWebhookEndpointBodySchema = Type.Object(
  {
    url: EndpointUrlField,
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled_events: Type.Optional(EnabledEventsField),
    status: Type.Optional(StringEnum(['enabled', 'disabled'] as const)),
  },
  { additionalProperties: false },
);

export const UpdateWebhookEndpointBodySchema = Type.Object(
  {
    url: Type.Optional(EndpointUrlField),
    description: Type.Optional(Nullable(Type.String({ maxLength: 500 }))),
    enabled_events: Type.Optional(EnabledEventsField),
    status: Type.Optional(
      StringEnum(['enabled', 'disabled'] as const, {
        description: 'Disabling cancels pending deliveries; enabling clears `disabled_reason` and `failing_since`.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const RotateSecretBodySchema = Type.Object(
  {
    expire_previous_in_seconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: MAX_ROTATION_OVERLAP_SECONDS,
        description: `How long requests are still signed with the old secret too (default ${DEFAULT_ROTATION_OVERLAP_SECONDS}, i.e. 24 h; 0 retires it at once).`,
      }),
    ),
  },
  { additionalProperties: false },
);

export const EventSchema = Type.Object(
  {
    id: Type.String({ description: '`evt_…`; also the `webhook-id` header of every delivery of this event.' }),
    type: Type.String({ description: 'See docs/webhook-events.md. Ignore types you do not know.' }),
    created_at: Timestamp('When the change happened.'),
    api_version: Type.String({ description: 'The API version the object is rendered in.' }),
    data: Type.Object(
      {
        object: Type.Object(
          {},
          {
            additionalProperties: true,
            description: 'The object after the change, with its `version` (order events of one object by it).',
          },
        ),
        previous_attributes: Type.Object(
          {},
          { additionalProperties: true, description: 'The changed fields before the change.' },
        ),
      },
      { additionalProperties: false },
    ),
  },
  { $id: 'Event', additionalProperties: false },
);

const AttemptSchema = Type.Object(
  {
    id: Type.String({ description: '`dla_…`' }),
    object: Type.Literal('webhook_attempt'),
    attempt_number: Type.Integer({ minimum: 1 }),
    url: Type.String(),
    outcome: StringEnum(['succeeded', 'http_error', 'redirect', 'timeout', 'network_error', 'blocked'] as const, {
      description: '`blocked`: the URL resolved to an address Tributary may not call (private, loopback, metadata…).',
    }),
    status_code: Nullable(Type.Integer()),
    duration_ms: Type.Integer({ minimum: 0 }),
    response_body: Nullable(Type.String({ description: 'The first 2 KiB of the answer.' })),
    error: Nullable(Type.String()),
    attempted_at: Timestamp('When the request was sent.'),
  },
  { additionalProperties: false },
);

export const WebhookDeliverySchema = Type.Object(
  {
    id: Type.String({ description: '`dlv_…`' }),
    object: Type.Literal('webhook_delivery'),
    event_id: Type.String(),
    target: StringEnum(['webhook_endpoint', 'callback_url'] as const),
    endpoint_id: Nullable(Type.String()),
    callback_url: Nullable(Type.String()),
    trigger: StringEnum(['event', 'redelivery'] as const),
    status: StringEnum(['pending', 'succeeded', 'failed', 'canceled'] as const),
    failure_reason: Nullable(
      StringEnum(['exhausted', 'gone', 'endpoint_disabled', 'endpoint_deleted'] as const, {
        description: '`exhausted`: every scheduled attempt failed; `gone`: the receiver answered 410.',
      }),
    ),
    attempt_count: Type.Integer({ minimum: 0 }),
    next_attempt_at: Nullable(Timestamp('Pending: the next attempt happens no later than this.')),
    last_attempt_at: Nullable(Timestamp('Last attempt.')),
    last_status_code: Nullable(Type.Integer()),
    created_at: Timestamp('When the delivery was scheduled.'),
    completed_at: Nullable(Timestamp('When it succeeded, failed for good or was canceled.')),
    attempts: Type.Array(AttemptSchema),
  },
  { $id: 'WebhookDelivery', additionalProperties: false },
);

export const CallbackSecretSchema = Type.Object(
  {
    object: Type.Literal('callback_secret'),
    environment: StringEnum(['sandbox', 'production'] as const),
    secret: Nullable(
      Type.String({
        description: 'The `whsec_…` secret that signs callback_url requests. Shown once: null once it has been read.',
      }),
    ),
    revealed_at: Nullable(Timestamp('When the current secret was shown.')),
    previous_secret_expires_at: Nullable(Timestamp('Until then, callbacks are also signed with the previous secret.')),
    created_at: Timestamp('Creation time.'),
    rotated_at: Nullable(Timestamp('Last rotation.')),
  },
  { $id: 'CallbackSecret', additionalProperties: false },
);

export const RedeliverBodySchema = Type.Object(
  {
    endpoint_id: Type.Optional(
      Type.String({ maxLength: 64, description: 'Only to this endpoint (even if it does not subscribe to the type).' }),
    ),
    callback_url: Type.Optional(Type.Boolean({ description: "`true`: only to the payment's callback_url." })),
  },
  {
    additionalProperties: false,
    description: 'Empty: to every enabled endpoint that subscribes to the type and to the callback_url.',
  },
);

export const listOf = (schema: TSchema, description: string) =>
  Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(Type.Ref(schema)),
      has_more: Type.Boolean({ description: 'More items follow: pass the last id as `starting_after`.' }),
    },
    { additionalProperties: false, description },
  );

export const WEBHOOK_SCHEMAS = [
  WebhookEndpointSchema,
  WebhookEndpointWithSecretSchema,
  EventSchema,
  WebhookDeliverySchema,
  CallbackSecretSchema,
];

const signatureHeaders = [
  {
    name: 'webhook-id',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'The event id (`evt_…`): the same on every retry and redelivery. Use it to drop duplicates.',
  },
  {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description: 'Unix seconds when this attempt was sent. Refuse requests more than 5 minutes away from your clock.',
  },
  {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    schema: { type: 'string' },
    description:
      'Space-separated `v1,<base64>` HMAC-SHA256 signatures of `{webhook-id}.{webhook-timestamp}.{body}`, one per valid secret (two during a rotation). Accept when any matches.',
  },
];

/**
 * The OpenAPI 3.1 `webhooks` section: one POST per event type, its body the event envelope with
 * `data.object` referencing the object's component schema when the document has it.
 */
export function openapiWebhooks(componentSchemas: Record<string, unknown>): Record<string, unknown> {
  const webhooks: Record<string, unknown> = {};
  for (const info of EVENT_TYPES) {
    const object =
      componentSchemas[info.objectSchema] === undefined
        ? { type: 'object', additionalProperties: true, description: `The ${info.objectType} after the change.` }
        : { $ref: `#/components/schemas/${info.objectSchema}` };
    const body = Type.Object(
      {
        id: Type.String({ description: '`evt_…`, equal to the `webhook-id` header.' }),
        type: Type.Literal(info.type),
        created_at: Timestamp('When the change happened.'),
        api_version: Type.String(),
        data: Type.Object(
          {
            object: Type.Unsafe(object),
            previous_attributes: Type.Object(
              {},
              { additionalProperties: true, description: 'Changed fields, before the change.' },
            ),
          },
          { additionalProperties: false },
        ),
      },
      { additionalProperties: false },
    );
    webhooks[info.type] = {
      post: {
        operationId: `webhook_${info.type.replace(/\./g, '_')}`,
        tags: ['webhooks'],
        summary: info.type,
        description: `${info.description} Sent to every enabled endpoint subscribed to \`${info.type}\`${
          info.objectType === 'payment' || info.objectType === 'refund' ? " and to the payment's `callback_url`" : ''
        }. See docs/webhooks.md for verification and retries.`,
        parameters: signatureHeaders,
        requestBody: {
          required: true,
          content: { 'application/json': { schema: JSON.parse(JSON.stringify(body)) as unknown, example: exampleEvent(info) } },
        },
        responses: {
          '2XX': { description: 'Received. Answer quickly (within 15 s) and process asynchronously.' },
          '410': { description: 'Gone: Tributary disables the endpoint and stops sending to it.' },
          default: {
            description:
              'Anything else (3xx included: redirects are not followed) is a failure and is retried, honouring `Retry-After`.',
          },
        },
      },
    };
  }
  return webhooks;
}
