import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify from 'fastify';
import { type DashboardRoute, recordDashboardRoutes } from '../../src/http/dashboard/index.ts';
import { sessionRoute } from '../../src/http/dashboard/dashboard-plugin.ts';
import { ID_PREFIXES, type IdKind, newId } from '../../src/lib/ids.ts';
import { PERMISSIONS, roleMay } from '../../src/modules/team/index.ts';
import { ROLES, type Role } from '../../src/kernel/index.ts';
import { storeDigest } from '../harness/store-digest.ts';
import {
  addPerson,
  type DashboardSession,
  getPage,
  type Person,
  postForm,
  signIn,
  signInWithKey,
} from '../harness/team-fixtures.ts';
import { appForSuite } from '../harness/test-app.ts';

/**
 * Every registered dashboard route (app.dashboardRoutes: pages added later are covered without a
 * change here) against every role: a role its permission allows is not refused (403); a role it
 * does not allow is refused with 403 and nothing in the store changes. A sandbox key's session may
 * do everything but manage the team.
 */
const ctx = appForSuite();

const KIND_OF_SEGMENT: Record<string, IdKind> = {
  payments: 'payment',
  checkouts: 'checkout',
  'payment-links': 'paymentLink',
  events: 'event',
  keys: 'apiKey',
  settlements: 'settlement',
  reconciliation: 'reconciliation',
  members: 'user',
  invitations: 'invitation',
};

/** A concrete URL for a route: each `:param` becomes a well-formed id of what the segment before it names. */
function concrete(url: string): string {
  const parts = url.split('/');
  return parts
    .map((part, i) => {
      if (!part.startsWith(':')) return part;
      const kind = KIND_OF_SEGMENT[parts[i - 1] ?? ''];
      return kind === undefined ? 'A'.repeat(43) : newId(kind);
    })
    .join('/');
}

describe('every dashboard route × every role', () => {
  it('registers every dashboard route with a permission of the one table', () => {
    const routes = ctx.t.app.dashboardRoutes;
    assert.ok(routes.length >= 25, `only ${routes.length} routes registered`);
    for (const r of routes) {
      assert.ok(r.permission === 'public' || r.permission === 'signed_in' || r.permission in PERMISSIONS, `${r.method} ${r.url}`);
    }
    assert.ok(Object.values(ID_PREFIXES).includes('usr'));
    assert.ok(routes.some((r) => r.url === '/dashboard/team' && r.permission === 'team.read'));
    assert.ok(routes.some((r) => r.url === '/dashboard/login' && r.permission === 'public'));
  });

  it('refuses to start with a dashboard route that names no permission', async () => {
    const app = Fastify();
    const routes: DashboardRoute[] = [];
    void app.register(
      async (dashboard) => {
        recordDashboardRoutes(dashboard, routes);
        dashboard.get('/named', sessionRoute('payments.read'), async () => 'ok');
        dashboard.get('/unnamed', { config: { public: true } }, async () => 'no');
      },
      { prefix: '/dashboard' },
    );
    await assert.rejects(async () => {
      await app.ready();
    }, /GET \/dashboard\/unnamed names no permission/);
    assert.deepEqual(routes, [{ method: 'GET', url: '/dashboard/named', permission: 'payments.read' }]);
    await app.close().catch(() => undefined);
  });

  it('allows what the role may and refuses the rest with 403, changing nothing', async () => {
    const { t, clock } = ctx;
    const people = new Map<Role, Person>();
    const sessions = new Map<Role | 'key', DashboardSession>();
    for (const role of ROLES) people.set(role, await addPerson(t, t.a.id, role));
    // A second owner, so that a route acting on owners never meets the last-owner lock by chance.
    await addPerson(t, t.a.id, 'owner');

    /** The session of a role, alive: signed in again when an allowed route (sign-out) ended it. */
    const sessionOf = async (who: Role | 'key'): Promise<DashboardSession> => {
      const known = sessions.get(who);
      if (known !== undefined && (await getPage(t, '/dashboard/team', known)).statusCode === 200) return known;
      const fresh = who === 'key' ? await signInWithKey(t, t.a.sandboxKey) : await signIn(t, clock, people.get(who) as Person);
      sessions.set(who, fresh);
      return fresh;
    };

    const routes = t.app.dashboardRoutes.filter((r) => r.permission !== 'public');
    let allowedChecked = 0;
    let refusedChecked = 0;
    for (const route of routes) {
      for (const who of [...ROLES, 'key'] as const) {
        const permission = route.permission;
        const allowed =
          permission === 'signed_in' ||
          (who === 'key'
            ? permission !== 'team.manage' && permission !== 'team.transfer_ownership'
            : roleMay(who, permission as keyof typeof PERMISSIONS));
        const session = await sessionOf(who);
        const url = concrete(route.url);
        const before = allowed ? undefined : await storeDigest(t.testStore.store);
        const res =
          route.method === 'GET'
            ? await getPage(t, url, session)
            : await postForm(t, url, { csrf_token: session.csrf, email: 'perm@example.com', role: 'viewer' }, session);
        const label = `${route.method} ${route.url} as ${who} (${permission})`;
        if (allowed) {
          assert.notEqual(res.statusCode, 403, `${label}: refused\n${res.body.slice(0, 400)}`);
          assert.ok(res.statusCode < 500, `${label}: ${res.statusCode}`);
          allowedChecked += 1;
        } else {
          assert.equal(res.statusCode, 403, `${label}: not refused`);
          assert.match(res.body, /Your role does not allow this|Only a person/, label);
          assert.equal(await storeDigest(t.testStore.store), before, `${label}: the store changed`);
          refusedChecked += 1;
        }
      }
    }
    assert.ok(allowedChecked > 0 && refusedChecked > 0, `${allowedChecked} allowed, ${refusedChecked} refused`);
  });
});
