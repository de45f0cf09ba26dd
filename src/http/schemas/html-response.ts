import { Type } from '@sinclair/typebox';

/**
 * A response that is an HTML page (the payer pages), declared per status: refusals before a page
 * is looked up (a malformed path, a rate limit, shutdown) are the JSON error body, so a route-wide
 * `produces` (which would label every status text/html) is not used.
 */
export const htmlResponse = (description: string) => ({
  description,
  content: { 'text/html': { schema: Type.String({ description }) } },
});
