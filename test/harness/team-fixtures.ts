import assert from 'node:assert/strict';
import type { LightMyRequestResponse } from 'fastify';
import type { ManualClock } from '../../src/lib/clock.ts';
import {
  acceptInvitation,
  inviteAsOperator,
  newTotpSecret,
  signSetupSecret,
  totpCodeAt,
  type TeamDeps,
} from '../../src/modules/team/index.ts';
import type { Environment, Role } from '../../src/kernel/index.ts';
import { PUBLIC_BASE_URL, TEST_SECRET, type TestApp } from './test-app.ts';

/** People of a test merchant, made the way the product makes them: an operator's invitation, accepted. */
export interface Person {
  userId: string;
  email: string;
  password: string;
  totpSecret: string;
  recoveryCodes: string[];
  role: Role;
}

export interface DashboardSession {
  cookie: string;
  csrf: string;
}

export const FORM = 'application/x-www-form-urlencoded';

export const teamDeps = (t: TestApp): TeamDeps => ({
  store: t.testStore.store,
  clock: t.clock,
  secret: TEST_SECRET,
  publicBaseUrl: PUBLIC_BASE_URL,
});

let counter = 0;

export function tokenOfLink(link: string): string {
  const token = /\/dashboard\/invitations\/([A-Za-z0-9_-]{43})$/.exec(link)?.[1];
  assert.ok(token !== undefined, `not an invitation link: ${link}`);
  return token;
}

export async function addPerson(t: TestApp, merchantId: string, role: Role, email?: string): Promise<Person> {
  counter += 1;
  const address = email ?? `${role}-${counter}-${Date.now()}@example.com`;
  const deps = teamDeps(t);
  const invited = await inviteAsOperator(deps, { merchantId, email: address, role, operator: 'test' });
  assert.ok(invited.ok, JSON.stringify(invited));
  const token = tokenOfLink(invited.link);
  const totpSecret = newTotpSecret();
  const password = `correct horse ${counter} battery`;
  const joined = await acceptInvitation(deps, token, {
    password,
    passwordAgain: password,
    totpSecret,
    totpSignature: signSetupSecret(deps, token, totpSecret),
    code: totpCodeAt(totpSecret, t.clock.now()),
  });
  assert.ok(joined.ok, JSON.stringify(joined));
  return { userId: joined.user.id, email: address, password, totpSecret, recoveryCodes: joined.recoveryCodes, role };
}

export async function postForm(
  t: TestApp,
  url: string,
  fields: Record<string, string>,
  session?: DashboardSession,
  address = '127.0.0.1',
): Promise<LightMyRequestResponse> {
  return t.app.inject({
    method: 'POST',
    url,
    remoteAddress: address,
    headers: { 'content-type': FORM, ...(session === undefined ? {} : { cookie: session.cookie }) },
    payload: new URLSearchParams(fields).toString(),
  });
}

export async function getPage(t: TestApp, url: string, session?: DashboardSession): Promise<LightMyRequestResponse> {
  return t.app.inject({ method: 'GET', url, headers: session === undefined ? {} : { cookie: session.cookie } });
}

export function pendingOf(body: string): string {
  const pending = /name="pending" value="([^"]+)"/.exec(body)?.[1];
  assert.ok(pending !== undefined, 'no pending sign-in step on the page');
  return pending;
}

export function csrfOf(body: string): string {
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(body)?.[1];
  assert.ok(csrf !== undefined, 'no CSRF token on the page');
  return csrf;
}

export function cookieOf(res: LightMyRequestResponse): string {
  const header = res.headers['set-cookie'];
  const first = Array.isArray(header) ? header[0] : header;
  assert.ok(typeof first === 'string', 'no Set-Cookie');
  return first.split(';')[0] as string;
}

/**
 * Signs a person in over HTTP (password, then the TOTP code of a fresh step: the clock moves on 30 s
 * first, as a code is accepted once).
 */
export async function signIn(
  t: TestApp,
  clock: ManualClock,
  person: Person,
  environment: Environment = 'production',
  address = '127.0.0.1',
): Promise<DashboardSession> {
  clock.advance(30_000);
  const first = await postForm(t, '/dashboard/login', { email: person.email, password: person.password }, undefined, address);
  assert.equal(first.statusCode, 200, first.body);
  const second = await postForm(
    t,
    '/dashboard/login/code',
    { pending: pendingOf(first.body), code: totpCodeAt(person.totpSecret, clock.now()), environment },
    undefined,
    address,
  );
  assert.equal(second.statusCode, 303, second.body);
  const cookie = cookieOf(second);
  const page = await getPage(t, '/dashboard/team', { cookie, csrf: '' });
  assert.equal(page.statusCode, 200, page.body);
  return { cookie, csrf: csrfOf(page.body) };
}

/** Signs in with a sandbox key (the sandbox-only key sign-in). */
export async function signInWithKey(t: TestApp, key: string): Promise<DashboardSession> {
  const res = await postForm(t, '/dashboard/login', { api_key: key });
  assert.equal(res.statusCode, 303, res.body);
  const cookie = cookieOf(res);
  const page = await getPage(t, '/dashboard/team', { cookie, csrf: '' });
  assert.equal(page.statusCode, 200, page.body);
  return { cookie, csrf: csrfOf(page.body) };
}
