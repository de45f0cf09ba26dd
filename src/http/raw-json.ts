import type { FastifyReply } from 'fastify';

/**
 * Sends JSON text that is already serialised (a stored idempotent response, replayed byte for
 * byte). Typed routes expect objects, hence the one cast, kept here.
 */
export function sendRawJson(reply: FastifyReply, status: number, json: string): FastifyReply {
  return reply
    .code(status)
    .type('application/json; charset=utf-8')
    .send(json as never);
}
