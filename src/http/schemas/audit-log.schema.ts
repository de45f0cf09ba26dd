import { Type } from '@sinclair/typebox';
import { AUDIT_ACTIONS } from '../../modules/audit/index.ts';
import { ROLES } from '../../kernel/index.ts';
import { PageLimit } from './payment-list.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

/** One row of the audit log (docs/audit-log.md): who changed what, when, from where. */
export const AuditEntrySchema = Type.Object(
  {
    id: Type.String({ description: '`aud_…`' }),
    object: Type.Literal('audit_entry'),
    action: StringEnum(AUDIT_ACTIONS, { description: 'What was done (docs/audit-log.md lists where each is recorded).' }),
    outcome: StringEnum(['succeeded', 'failed'] as const, { description: '`failed` only for refused sign-ins.' }),
    environment: Nullable(
      StringEnum(['sandbox', 'production'] as const, {
        description: 'Null for what is the merchant as a whole (members, settings).',
      }),
    ),
    target: Type.Object(
      {
        type: Nullable(Type.String({ description: '`payment`, `refund`, `api_key`, `webhook_endpoint`, …' })),
        id: Nullable(Type.String({ description: 'The object changed, when it has an id.' })),
      },
      { additionalProperties: false },
    ),
    actor: Type.Object(
      {
        type: StringEnum(['api_key', 'user', 'operator', 'system'] as const),
        id: Nullable(Type.String({ description: 'The key (`key_…`) or the person (`usr_…`); null for the operator.' })),
        label: Type.String({
          description: "The key's display prefix (never the secret), the person's e-mail, or the operator's name.",
        }),
        role: Nullable(StringEnum(ROLES, { description: "The person's role at the time; null for a key." })),
      },
      { additionalProperties: false },
    ),
    address: Nullable(Type.String({ description: "The request's client address; null from the CLI." })),
    user_agent: Nullable(Type.String()),
    request_id: Nullable(Type.String({ description: "The request's id (the `Request-Id` header of its answer)." })),
    changes: Type.Record(Type.String(), Type.Unknown(), {
      description: "What changed: `{field: value}` or `{field: {from, to}}`; never a secret or a payer's personal data.",
    }),
    occurred_at: Timestamp('When the change committed.'),
  },
  { $id: 'AuditEntry', additionalProperties: false },
);

export const ListAuditLogQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        maxLength: 64,
        description:
          'An audit entry id (`next_cursor` of the previous page): the page starts right after it. An id that is not one of the entries this key can see is a 400 `unknown_cursor`.',
      }),
    ),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, { description: 'Only this action.' })),
    actor_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only what this key (`key_…`) or person (`usr_…`) did.' })),
    object_id: Type.Optional(Type.String({ maxLength: 64, description: 'Only entries about this object (`pay_…`, `we_…`, …).' })),
    occurred_gte: Type.Optional(
      Type.String({ format: 'date-time', description: 'At or after this instant (RFC 3339; encode `+` as `%2B`).' }),
    ),
    occurred_lte: Type.Optional(Type.String({ format: 'date-time', description: 'At or before this instant (RFC 3339).' })),
  },
  { additionalProperties: false },
);

export const AuditEntryListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(AuditEntrySchema), { description: 'Newest first.' }),
    has_more: Type.Boolean({ description: 'Whether another page follows.' }),
    next_cursor: Nullable(Type.String({ description: 'Pass as `starting_after` to get the next page; null on the last page.' })),
  },
  { $id: 'AuditEntryList', additionalProperties: false },
);
