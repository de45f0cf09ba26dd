import { Type } from '@sinclair/typebox';
import { DISCREPANCY_KINDS } from '../../modules/reconciliation/compare-report.ts';
import { FIRST_PAGE_LINES } from '../../modules/reconciliation/reconciliation-view.ts';
import { PageLimit } from './payment-list.schema.ts';
import { Nullable, StringEnum, Timestamp } from './schema-helpers.ts';

export const LINE_RESULTS = ['matched', ...DISCREPANCY_KINDS] as const;

export const CreateReconciliationBodySchema = Type.Object(
  {
    connector: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'The connector whose settlement report to compare, e.g. `sandbox_bank` (another name is `unknown_connector`).',
    }),
    from: Type.String({
      format: 'date-time',
      description: 'Start of the window (inclusive), RFC 3339, by the provider settlement time.',
    }),
    to: Type.String({
      format: 'date-time',
      description:
        'End of the window (exclusive): after `from` (else `not_after_from`) and at most 31 days after it (else `window_too_long`).',
    }),
  },
  { additionalProperties: false },
);

const Side = (who: string, extra: Record<string, ReturnType<typeof Type.String>> = {}) =>
  Nullable(
    Type.Object(
      {
        ...extra,
        currency: Type.String(),
        gross: Type.Number({ description: `Gross as ${who}, exact, in major units.` }),
        fee: Type.Number(),
        net: Type.Number(),
        settled_at: Timestamp(`Settlement time as ${who}.`),
      },
      { additionalProperties: false },
    ),
  );

const SummaryFields = {
  id: Type.String({ description: '`rec_…`' }),
  object: Type.Literal('reconciliation'),
  environment: Type.String(),
  connector: Type.String(),
  from: Timestamp('Start of the window (inclusive).'),
  to: Timestamp('End of the window (exclusive).'),
  status: StringEnum(['matched', 'discrepancies'] as const, {
    description: '`matched`: every line matched; `discrepancies`: at least one line did not (see docs/money.md).',
  }),
  summary: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
    description: '`report_lines`, `matched`, `discrepancies`, and the count of each discrepancy kind.',
  }),
  created_at: Timestamp('When the reconciliation ran.'),
};

export const ReconciliationLineSchema = Type.Object(
  {
    seq: Type.Integer({
      minimum: 1,
      description: "The line's position in the reconciliation (report lines first, in report order, then `missing_in_report`).",
    }),
    result: StringEnum(LINE_RESULTS, { description: 'matched, or the discrepancy kind (docs/money.md "Reconciliation").' }),
    payment_id: Nullable(Type.String()),
    provider_reference: Type.String(),
    report: Side('the provider reported it'),
    ours: Side('Tributary recorded it', { settlement_id: Type.String() }),
  },
  { additionalProperties: false },
);

const LinesCursor = Nullable(
  Type.String({ description: 'Pass as `starting_after` to GET /reconciliation/{id}/lines for the next page; null on the last.' }),
);

export const ReconciliationSchema = Type.Object(
  {
    ...SummaryFields,
    lines: Type.Optional(
      Type.Array(ReconciliationLineSchema, {
        maxItems: FIRST_PAGE_LINES,
        description: `The first ${FIRST_PAGE_LINES} lines; GET /reconciliation/{id}/lines pages through all of them.`,
      }),
    ),
    lines_has_more: Type.Optional(Type.Boolean({ description: 'More lines follow the ones in `lines`.' })),
    lines_next_cursor: Type.Optional(LinesCursor),
  },
  { $id: 'Reconciliation', additionalProperties: false },
);

export const ListReconciliationLinesQuerySchema = Type.Object(
  {
    limit: PageLimit(),
    starting_after: Type.Optional(
      Type.String({
        pattern: '^[1-9][0-9]{0,8}$',
        description: 'A line position (`next_cursor` of the previous page): the page starts right after it.',
      }),
    ),
    result: Type.Optional(StringEnum(LINE_RESULTS, { description: 'Only lines with this result.' })),
  },
  { additionalProperties: false },
);

export const ReconciliationLineListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(ReconciliationLineSchema, { description: 'In line order.' }),
    has_more: Type.Boolean(),
    next_cursor: LinesCursor,
  },
  { $id: 'ReconciliationLineList', additionalProperties: false },
);
