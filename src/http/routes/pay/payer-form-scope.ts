import type { FastifyInstance } from 'fastify';

/** A payer form is a few short fields; anything larger is not ours. */
const FORM_BODY_LIMIT_BYTES = 4_096;

/**
 * Registers payer-page form routes in a scope of their own that parses exactly what the pages post
 * (`application/x-www-form-urlencoded`, first value of each name) and nothing else: a JSON body
 * there is somebody else's client (415), and the API elsewhere stays JSON-only.
 */
export function payerFormScope(app: FastifyInstance, routes: (scope: FastifyInstance) => void): void {
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT_BYTES },
      (_request, body, done) => {
        const form: Record<string, string> = Object.create(null) as Record<string, string>;
        for (const [name, value] of new URLSearchParams(body as string)) if (!(name in form)) form[name] = value;
        done(null, form);
      },
    );
    routes(scope);
  });
}

/** Post/redirect/get: the page to show after a form post, never re-posted by a reload. */
export const seeOther = (location: string) => ({
  code: 303 as const,
  headers: { Location: location, 'Cache-Control': 'no-store' },
});
