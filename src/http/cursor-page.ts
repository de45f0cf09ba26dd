import { ApiError, type FieldIssue } from '../lib/error-catalogue.ts';

/**
 * The id-cursor lists (decision 0010: GET /payment, /settlement, /settlement_exception): one
 * field issue for a cursor that is not one of the caller's objects, and one page envelope.
 */
export function unknownCursorIssue(objects: string): FieldIssue {
  return {
    field: 'query.starting_after',
    issue: 'unknown_cursor',
    message: `starting_after must be the id of one of your ${objects} in this environment`,
  };
}

export function unknownCursorError(objects: string): ApiError {
  return new ApiError('invalid_request', 'The request has invalid fields.', { details: [unknownCursorIssue(objects)] });
}

/** `{object: "list", data, has_more, next_cursor}`; the cursor is the last item's id when more follow. */
export function cursorPage<T extends { id: string }, V>(items: readonly T[], hasMore: boolean, view: (item: T) => V) {
  const last = items.at(-1);
  return {
    object: 'list' as const,
    data: items.map(view),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? last.id : null,
  };
}
