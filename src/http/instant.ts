import type { FieldIssue } from '../lib/error-catalogue.ts';

/**
 * RFC 3339 text (already checked by the schema) → Date. The format allows a lower-case `t`/`z`
 * and a space separator, which Date.parse does not read, so those are normalised first.
 */
export function instantOf(text: string, field: string, issues: FieldIssue[]): Date | undefined {
  const ms = Date.parse(text.toUpperCase().replace(' ', 'T'));
  if (Number.isNaN(ms)) {
    issues.push({ field, issue: 'invalid_format', message: `${field} must be an RFC 3339 date-time, e.g. 2026-01-31T00:00:00Z` });
    return undefined;
  }
  return new Date(ms);
}
