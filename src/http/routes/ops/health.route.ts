import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { Store } from '../../../db/store.ts';
import { migrationsCurrent } from '../../../db/migrate.ts';

export interface Readiness {
  /** Set when SIGTERM arrives: readiness goes red so load balancers stop sending traffic. */
  shuttingDown: boolean;
}

const READY_PING_TIMEOUT_MS = 1_000;

const HealthSchema = Type.Object({ status: Type.String(), checks: Type.Optional(Type.Record(Type.String(), Type.String())) });

export function registerHealth(app: FastifyInstance, deps: { store: Store; readiness: Readiness }): void {
  app.get(
    '/healthz',
    {
      config: { public: true },
      schema: { tags: ['operations'], summary: 'Liveness: the process answers', response: { 200: HealthSchema } },
    },
    async () => ({ status: 'ok' }),
  );

  let migrated = false;
  app.get(
    '/readyz',
    {
      config: { public: true },
      schema: {
        tags: ['operations'],
        summary: 'Readiness: the database answers, migrations are applied, not shutting down',
        response: { 200: HealthSchema, 503: HealthSchema },
      },
    },
    async (_request, reply) => {
      const checks: Record<string, string> = {};
      let ready = true;
      if (deps.readiness.shuttingDown) {
        checks['shutdown'] = 'shutting down';
        ready = false;
      }
      try {
        await deps.store.ping(READY_PING_TIMEOUT_MS);
        checks['database'] = 'ok';
        if (!migrated) migrated = await migrationsCurrent(deps.store);
        checks['migrations'] = migrated ? 'ok' : 'pending';
        ready &&= migrated;
      } catch {
        checks['database'] = 'unavailable';
        ready = false;
      }
      return reply.code(ready ? 200 : 503).send({ status: ready ? 'ready' : 'not_ready', checks });
    },
  );
}
