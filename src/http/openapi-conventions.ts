import type { FastifyInstance, RouteOptions } from 'fastify';
import { emptyBodyAsObject } from './idempotency-header.ts';

/**
 * What /openapi.json must say about a route that its schema alone cannot make @fastify/swagger say,
 * derived from the route itself so a new route is documented right without remembering to:
 *
 * - a public route (`config.public`: no API key, like the payer page, health checks and provider
 *   notifications) has `security: []`, overriding the document's default bearer key;
 * - a POST whose body is optional (it runs `emptyBodyAsObject`: no body means `{}`) has
 *   `requestBody.required: false` (@fastify/swagger marks every body required);
 * - every response declares the `Request-Id` header every answer carries (app.ts, errors.ts), and
 *   every error response the `Retry-After` that 429 and 503 answers carry (docs/errors.md).
 */
type Headers = Record<string, { description: string; required: boolean; schema: Record<string, unknown> }>;
type Document = {
  paths?: Record<
    string,
    Record<string, { requestBody?: { required?: boolean }; responses?: Record<string, { headers?: Headers }> }>
  >;
};

const REQUEST_ID_HEADER: Headers = {
  'Request-Id': {
    description: 'The id of this request (`req_…`); an error body carries it as `request_id`. Quote it to support.',
    required: true,
    schema: { type: 'string', pattern: '^req_[0-9A-HJKMNP-TV-Z]{26}$' },
  },
};
const RETRY_AFTER_HEADER: Headers = {
  'Retry-After': {
    description: 'Seconds to wait before retrying; sent with 429, 503 and 409 `idempotency_request_in_progress`.',
    required: false,
    schema: { type: 'string', pattern: '^[0-9]+$' },
  },
};

const openApiPath = (url: string) => url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

function runsEmptyBodyAsObject(route: RouteOptions): boolean {
  return [route.preValidation].flat().includes(emptyBodyAsObject as never);
}

export function trackDocumentConventions(app: FastifyInstance): { apply<T>(doc: T): T } {
  const optionalBodies = new Set<string>();
  app.addHook('onRoute', (route) => {
    const schema = route.schema as Record<string, unknown> | undefined;
    if (schema === undefined || schema['hide'] === true) return;
    if ((route.config as { public?: boolean } | undefined)?.public === true && schema['security'] === undefined) {
      route.schema = { ...schema, security: [] };
    }
    if (runsEmptyBodyAsObject(route)) {
      for (const method of [route.method].flat()) optionalBodies.add(`${method.toLowerCase()} ${openApiPath(route.url)}`);
    }
  });
  return {
    apply(doc) {
      const paths = (doc as Document).paths ?? {};
      for (const [path, item] of Object.entries(paths)) {
        for (const [method, operation] of Object.entries(item)) {
          if (optionalBodies.has(`${method} ${path}`) && operation.requestBody !== undefined)
            operation.requestBody.required = false;
          for (const [status, response] of Object.entries(operation.responses ?? {})) {
            const isError = /^[45]/.test(status);
            response.headers = { ...response.headers, ...REQUEST_ID_HEADER, ...(isError ? RETRY_AFTER_HEADER : {}) };
          }
        }
      }
      return doc;
    },
  };
}
