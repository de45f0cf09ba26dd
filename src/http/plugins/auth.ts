import type { FastifyInstance } from 'fastify';
import { ApiError } from '../../lib/error-catalogue.ts';
import type { Authenticator } from '../../modules/merchants/authenticator.ts';
import { KNOWN_API_VERSIONS } from '../../modules/merchants/merchant-service.ts';
import type { Principal, RequestOrigin } from '../../kernel/index.ts';

declare module 'fastify' {
  interface FastifyRequest {
    principal: Principal | null;
  }
  interface FastifyContextConfig {
    /** Routes that do not take an API key (health, reference, payer page, provider callbacks). */
    public?: boolean;
  }
}

const BEARER = /^Bearer ([^\s]+)$/i;
const USER_AGENT_MAX = 256;

type OriginRequest = { ip: string; id: string; headers: Record<string, string | string[] | undefined> };

/** Where a request came from (the audit log's address, user agent and request id). */
export function originOf(request: OriginRequest): RequestOrigin {
  const agent = request.headers['user-agent'];
  const userAgent = typeof agent === 'string' ? agent.slice(0, USER_AGENT_MAX) : null;
  return { address: request.ip, userAgent, requestId: request.id };
}

/**
 * The principal with where this request came from (and the request's API version).
 * `Object.assign`, not `{ ...principal, origin }`: on Node 20 that spread, run for every request,
 * kept each request's objects alive across young collections (decision 0028).
 */
export function withOrigin(principal: Principal, request: OriginRequest, apiVersion = principal.apiVersion): Principal {
  return Object.assign({}, principal, { apiVersion, origin: originOf(request) });
}

/** The authenticated principal of a route that requires a key (set by the auth hook). */
export function principalOf(request: { principal: Principal | null }): Principal {
  if (request.principal === null) throw new ApiError('unauthorized', 'An API key is required.');
  return request.principal;
}

/**
 * Bearer authentication on every route not marked public. Runs before the body is read, so an
 * unauthenticated caller learns nothing about validation. The key decides merchant and
 * environment; the `Api-Version` header may pick a known version, otherwise the merchant's
 * pinned version applies; the response echoes the version in use.
 */
export function registerAuth(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest('principal', null);
  app.addHook('onRequest', async (request, reply) => {
    if (request.routeOptions.config.public === true || request.routeOptions.url === undefined) return;
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? BEARER.exec(header) : null;
    if (match?.[1] === undefined) {
      reply.header('WWW-Authenticate', 'Bearer');
      throw new ApiError('unauthorized', 'Send your API key as `Authorization: Bearer <API_KEY>`.');
    }
    const principal = await authenticator.authenticate(match[1]);
    if (principal === undefined) {
      reply.header('WWW-Authenticate', 'Bearer error="invalid_token"');
      throw new ApiError('unauthorized', 'The API key is not valid (unknown, expired or revoked).');
    }
    const requested = request.headers['api-version'];
    if (requested !== undefined) {
      const version = Array.isArray(requested) ? requested[0] : requested;
      if (version === undefined || !KNOWN_API_VERSIONS.includes(version)) {
        throw new ApiError('invalid_api_version', `Unknown Api-Version. Known versions: ${KNOWN_API_VERSIONS.join(', ')}.`);
      }
      request.principal = withOrigin(principal, request, version);
    } else {
      request.principal = withOrigin(principal, request);
    }
    reply.header('Api-Version', request.principal.apiVersion);
  });
}
