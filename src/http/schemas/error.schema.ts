import { Type } from '@sinclair/typebox';
import { ERROR_CATALOGUE } from '../../lib/error-catalogue.ts';
import { StringEnum } from './schema-helpers.ts';

export const ErrorBodySchema = Type.Object(
  {
    code: StringEnum(Object.keys(ERROR_CATALOGUE) as (keyof typeof ERROR_CATALOGUE)[], {
      description: 'Stable snake_case error code; see docs/errors.md.',
    }),
    message: Type.String({ description: 'Human-readable explanation. Do not parse it.' }),
    details: Type.Array(
      Type.Object({}, { additionalProperties: true, description: 'A field problem is `{field, issue, message}`.' }),
    ),
    request_id: Type.String({ description: 'The `req_…` id of this request, also in the `Request-Id` header.' }),
  },
  { $id: 'Error', additionalProperties: false, description: 'The body of every error response.' },
);

export const errorResponses = {
  '4xx': Type.Ref(ErrorBodySchema),
  '5xx': Type.Ref(ErrorBodySchema),
};
