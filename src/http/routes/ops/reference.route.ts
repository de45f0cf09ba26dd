import type { FastifyInstance } from 'fastify';

/** The OpenAPI document, generated from the same route schemas that validate requests. */
export function registerReference(app: FastifyInstance): void {
  app.get('/openapi.json', { config: { public: true }, schema: { hide: true } }, async (_request, reply) => {
    return reply.type('application/json; charset=utf-8').send(JSON.stringify(app.swagger()));
  });
}
