import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { runAdminCommand } from '../../src/cli/admin-commands.ts';
import {
  createInvitationMailer,
  firstOwnerLink,
  inviteAsOperator,
  NOT_RIGHT,
  signSetupSecret,
  totpCodeAt,
} from '../../src/modules/team/index.ts';
import { startSmtpReceiver } from '../harness/smtp-receiver.ts';
import { verifyPassword } from '../../src/modules/team/passwords.ts';
import {
  addPerson,
  getPage,
  pendingOf,
  type Person,
  postForm,
  signIn,
  signInWithKey,
  teamDeps,
  tokenOfLink,
} from '../harness/team-fixtures.ts';
import { appForSuite, PUBLIC_BASE_URL, TEST_OPERATOR, TEST_SECRET, type TestApp } from '../harness/test-app.ts';

/**
 * People and roles (docs/team.md), over HTTP on the store under test: scrypt hashes, TOTP once,
 * recovery codes once, sign-in limits per account and per address with one message for every
 * failure (unknown accounts too), invitations used once and expiring, the last owner's lock, an
 * admin's limits, removal ending sessions, production keys refused, and the audit rows.
 */
const ctx = appForSuite();

async function auditCount(t: TestApp, merchantId: string, action: string, objectId?: string): Promise<number> {
  const rows = await t.testStore.store.query<{ n: string | number }>(
    `SELECT count(*) AS n FROM audit_log WHERE merchant_id = $1 AND action = $2 AND ($3::text IS NULL OR object_id = $3)`,
    [merchantId, action, objectId ?? null],
  );
  return Number(rows[0]?.n ?? 0);
}

async function roleOf(t: TestApp, userId: string): Promise<string | undefined> {
  const rows = await t.testStore.store.query<{ role: string }>('SELECT role FROM users WHERE id = $1 AND removed_at IS NULL', [
    userId,
  ]);
  return rows[0]?.role;
}

/** The message of a sign-in page's notice. */
function noticeOf(body: string): string | undefined {
  return /id="notice" role="status">([^<]*)</.exec(body)?.[1];
}

async function passwordAttempt(email: string, password: string, address: string) {
  return postForm(ctx.t, '/dashboard/login', { email, password }, undefined, address);
}

describe('people sign in', () => {
  let owner: Person;

  it('stores the password as a salted scrypt hash and the person joins with one audit row', async () => {
    const { t } = ctx;
    owner = await addPerson(t, t.a.id, 'owner');
    const rows = await t.testStore.store.query<{ password_hash: string; email: string }>(
      'SELECT password_hash, email FROM users WHERE id = $1',
      [owner.userId],
    );
    const hash = rows[0]?.password_hash ?? '';
    assert.match(hash, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
    assert.ok(!hash.includes(owner.password));
    assert.equal(await verifyPassword(owner.password, hash), true);
    assert.equal(await verifyPassword(`${owner.password}x`, hash), false);
    // Another person with the same password gets another salt.
    const other = await addPerson(t, t.a.id, 'viewer');
    await t.testStore.store.query('SELECT 1');
    const otherHash = (
      await t.testStore.store.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [other.userId])
    )[0]?.password_hash;
    assert.notEqual(otherHash?.split('$')[4], hash.split('$')[4]);
    assert.equal(await auditCount(t, t.a.id, 'member.joined', owner.userId), 1);
    assert.equal(owner.recoveryCodes.length, 10);
  });

  it('signs in with password and TOTP; the same code is refused the second time', async () => {
    const { t, clock } = ctx;
    const session = await signIn(t, clock, owner);
    const page = await getPage(t, '/dashboard/payments', session);
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /id="signed-in-as"[^>]*>[^<]*owner/);
    assert.equal(await auditCount(t, t.a.id, 'user.signed_in', owner.userId), 1);
    // The code just used, again (same step): refused with the generic message.
    const again = await passwordAttempt(owner.email, owner.password, '10.0.0.1');
    assert.equal(again.statusCode, 200);
    const reuse = await postForm(
      t,
      '/dashboard/login/code',
      { pending: pendingOf(again.body), code: totpCodeAt(owner.totpSecret, clock.now()) },
      undefined,
      '10.0.0.1',
    );
    assert.equal(reuse.statusCode, 401);
    assert.equal(noticeOf(reuse.body), NOT_RIGHT);
    assert.equal(reuse.headers['set-cookie'], undefined);
    // An older code (two steps back) is refused too; one step later works.
    clock.advance(30_000);
    const later = await postForm(
      t,
      '/dashboard/login/code',
      { pending: pendingOf(again.body), code: totpCodeAt(owner.totpSecret, clock.now()) },
      undefined,
      '10.0.0.1',
    );
    assert.equal(later.statusCode, 303, later.body);
    assert.equal(await auditCount(t, t.a.id, 'user.sign_in_failed', owner.userId), 1);
  });

  it('a recovery code works once', async () => {
    const { t, clock } = ctx;
    clock.advance(60_000);
    const code = owner.recoveryCodes[0] as string;
    const first = await passwordAttempt(owner.email, owner.password, '10.0.0.2');
    const used = await postForm(t, '/dashboard/login/code', { pending: pendingOf(first.body), code }, undefined, '10.0.0.2');
    assert.equal(used.statusCode, 303, used.body);
    assert.equal(await auditCount(t, t.a.id, 'user.recovery_code_used', owner.userId), 1);
    const second = await passwordAttempt(owner.email, owner.password, '10.0.0.2');
    const again = await postForm(t, '/dashboard/login/code', { pending: pendingOf(second.body), code }, undefined, '10.0.0.2');
    assert.equal(again.statusCode, 401);
    assert.equal(noticeOf(again.body), NOT_RIGHT);
    assert.equal(await auditCount(t, t.a.id, 'user.recovery_code_used', owner.userId), 1);
  });

  it('limits failures per account, with the same answers for an unknown account', async () => {
    const { t, clock } = ctx;
    clock.advance(16 * 60_000);
    const person = await addPerson(t, t.a.id, 'finance');
    const known: string[] = [];
    const unknown: string[] = [];
    // Five wrong passwords, each from another address: the account's limit, not the address's.
    for (let i = 0; i < 5; i += 1) {
      const k = await passwordAttempt(person.email, 'wrong password 123', `10.1.0.${i}`);
      const u = await passwordAttempt('nobody-here@example.com', 'wrong password 123', `10.2.0.${i}`);
      assert.equal(k.statusCode, 401);
      assert.equal(u.statusCode, 401);
      known.push(noticeOf(k.body) ?? '');
      unknown.push(noticeOf(u.body) ?? '');
    }
    assert.deepEqual(known, unknown);
    assert.ok(known.every((m) => m === NOT_RIGHT));
    // The sixth, even with the right password, is refused with how long to wait; the same for the unknown e-mail.
    const blocked = await passwordAttempt(person.email, person.password, '10.1.0.9');
    const blockedUnknown = await passwordAttempt('nobody-here@example.com', 'whatever password', '10.2.0.9');
    assert.equal(blocked.statusCode, 429);
    assert.equal(blockedUnknown.statusCode, 429);
    assert.equal(noticeOf(blocked.body), 'Too many attempts. Try again in 15 minutes.');
    assert.equal(noticeOf(blockedUnknown.body), noticeOf(blocked.body));
    assert.equal(await auditCount(t, t.a.id, 'user.sign_in_failed', person.userId), 5);
    // After the window, the right password and code work again.
    clock.advance(15 * 60_000 + 1);
    await signIn(t, clock, person, 'production', '10.1.0.10');
  });

  it('limits failures per address, whatever the accounts', async () => {
    const { clock } = ctx;
    clock.advance(16 * 60_000);
    for (let i = 0; i < 20; i += 1) {
      const res = await passwordAttempt(`spray-${i}@example.com`, 'wrong password 123', '10.9.9.9');
      assert.equal(res.statusCode, 401);
    }
    const blocked = await passwordAttempt(owner.email, owner.password, '10.9.9.9');
    assert.equal(blocked.statusCode, 429);
    assert.match(noticeOf(blocked.body) ?? '', /^Too many attempts\. Try again in \d+ minutes?\.$/);
    // Another address is not held back.
    const elsewhere = await passwordAttempt(owner.email, owner.password, '10.9.9.10');
    assert.equal(elsewhere.statusCode, 200);
  });

  it('refuses a production key at sign-in; a sandbox key opens a session that cannot manage the team', async () => {
    const { t } = ctx;
    const refused = await postForm(t, '/dashboard/login', { api_key: t.a.productionKey });
    assert.equal(refused.statusCode, 403);
    assert.match(refused.body, /production data needs a person/);
    assert.equal(refused.headers['set-cookie'], undefined);
    const session = await signInWithKey(t, t.a.sandboxKey);
    const before = await auditCount(t, t.a.id, 'member.invited');
    const invite = await postForm(
      t,
      '/dashboard/team/invitations',
      { csrf_token: session.csrf, email: 'k@example.com', role: 'viewer' },
      session,
    );
    assert.equal(invite.statusCode, 403);
    assert.equal(await auditCount(t, t.a.id, 'member.invited'), before);
    const team = await getPage(t, '/dashboard/team', session);
    assert.ok(!team.body.includes('id="invite-form"'), 'a key session sees no invite form');
    // A session a production key opened before this release no longer works.
    const [productionKey] = await t.merchants.listKeysOf({ merchantId: t.a.id, environment: 'production' });
    assert.ok(productionKey !== undefined);
    const token = randomBytes(32).toString('base64url');
    const tokenHash = createHmac('sha256', TEST_SECRET).update(`dashboard-session\0${token}`).digest('hex');
    await t.testStore.store.query(
      'INSERT INTO dashboard_sessions (token_hash, key_id, created_at, last_seen_at) VALUES ($1, $2, $3, $3)',
      [tokenHash, productionKey.id, t.clock.now()],
    );
    const old = await getPage(t, '/dashboard/payments', { cookie: `tributary_dashboard=${token}`, csrf: '' });
    assert.equal(old.statusCode, 303);
    assert.equal(old.headers['location'], '/dashboard/login');
  });
});

describe('invitations and members', () => {
  it('an invitation link works once and not after it expired or was revoked', async () => {
    const { t, clock } = ctx;
    const owner = await addPerson(t, t.b.id, 'owner');
    const session = await signIn(t, clock, owner);
    const invite = await postForm(
      t,
      '/dashboard/team/invitations',
      { csrf_token: session.csrf, email: 'New.Person@Example.com', role: 'support' },
      session,
    );
    assert.equal(invite.statusCode, 201, invite.body);
    const link = /id="invite-url">([^<]+)</.exec(invite.body)?.[1] ?? '';
    const token = tokenOfLink(link);
    assert.equal(await auditCount(t, t.b.id, 'member.invited'), 2, "the owner's and this one");
    const setup = await getPage(t, `/dashboard/invitations/${token}`);
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /new\.person@example\.com/);
    assert.match(setup.body, /<svg /);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.body)?.[1] ?? '';
    const signature = /name="totp_signature" value="([^"]+)"/.exec(setup.body)?.[1] ?? '';
    const fields = {
      password: 'a long enough password',
      password_again: 'a long enough password',
      totp_secret: secret,
      totp_signature: signature,
      code: totpCodeAt(secret, clock.now()),
    };
    // A wrong code or a short password changes nothing.
    const wrong = await postForm(t, `/dashboard/invitations/${token}`, {
      ...fields,
      code: '000000' === fields.code ? '111111' : '000000',
    });
    assert.equal(wrong.statusCode, 400);
    const short = await postForm(t, `/dashboard/invitations/${token}`, { ...fields, password: 'short', password_again: 'short' });
    assert.equal(short.statusCode, 400);
    const joined = await postForm(t, `/dashboard/invitations/${token}`, fields);
    assert.equal(joined.statusCode, 200, joined.body);
    assert.equal((joined.body.match(/<li><code>/g) ?? []).length, 10);
    const reused = await postForm(t, `/dashboard/invitations/${token}`, fields);
    assert.equal(reused.statusCode, 404);
    assert.equal((await getPage(t, `/dashboard/invitations/${token}`)).statusCode, 404);
    assert.equal(await auditCount(t, t.b.id, 'member.joined'), 2);

    // Expiry: 7 days.
    const deps = teamDeps(t);
    const late = await inviteAsOperator(deps, {
      merchantId: t.b.id,
      email: 'late@example.com',
      role: 'viewer',
      operator: 'test',
    });
    assert.ok(late.ok);
    clock.advance(7 * 24 * 3_600_000 + 1);
    assert.equal((await getPage(t, `/dashboard/invitations/${tokenOfLink(late.link)}`)).statusCode, 404);

    // Revoked.
    const session2 = await signIn(t, clock, owner);
    const revocable = await inviteAsOperator(deps, {
      merchantId: t.b.id,
      email: 'gone@example.com',
      role: 'viewer',
      operator: 'test',
    });
    assert.ok(revocable.ok);
    const revoke = await postForm(
      t,
      `/dashboard/team/invitations/${revocable.invitation.id}/revoke`,
      { csrf_token: session2.csrf },
      session2,
    );
    assert.equal(revoke.statusCode, 303, revoke.body);
    assert.equal((await getPage(t, `/dashboard/invitations/${tokenOfLink(revocable.link)}`)).statusCode, 404);
    assert.equal(await auditCount(t, t.b.id, 'member.invitation_revoked', revocable.invitation.id), 1);
  });

  it('keeps the last owner, and an admin cannot invite, change or remove an owner', async () => {
    const { t, clock } = ctx;
    const merchant = await t.merchants.createMerchant('Team lock', TEST_OPERATOR);
    const m = merchant.merchant.id;
    const owner = await addPerson(t, m, 'owner');
    const admin = await addPerson(t, m, 'admin');
    const ownerSession = await signIn(t, clock, owner);
    const adminSession = await signIn(t, clock, admin);
    const before = await t.testStore.store.query('SELECT count(*) AS n FROM audit_log WHERE merchant_id = $1', [m]);

    const demote = await postForm(
      t,
      `/dashboard/team/members/${owner.userId}/role`,
      { csrf_token: ownerSession.csrf, role: 'admin' },
      ownerSession,
    );
    assert.equal(demote.statusCode, 409);
    assert.match(demote.body, /last owner/);
    const removeSelf = await postForm(
      t,
      `/dashboard/team/members/${owner.userId}/remove`,
      { csrf_token: ownerSession.csrf },
      ownerSession,
    );
    assert.equal(removeSelf.statusCode, 409);
    assert.equal(await roleOf(t, owner.userId), 'owner');

    const adminDemotes = await postForm(
      t,
      `/dashboard/team/members/${owner.userId}/role`,
      { csrf_token: adminSession.csrf, role: 'viewer' },
      adminSession,
    );
    assert.equal(adminDemotes.statusCode, 403);
    const adminRemoves = await postForm(
      t,
      `/dashboard/team/members/${owner.userId}/remove`,
      { csrf_token: adminSession.csrf },
      adminSession,
    );
    assert.equal(adminRemoves.statusCode, 403);
    const adminInvitesOwner = await postForm(
      t,
      '/dashboard/team/invitations',
      { csrf_token: adminSession.csrf, email: 'o2@example.com', role: 'owner' },
      adminSession,
    );
    assert.equal(adminInvitesOwner.statusCode, 403);
    const adminPromotes = await postForm(
      t,
      `/dashboard/team/members/${admin.userId}/role`,
      { csrf_token: adminSession.csrf, role: 'owner' },
      adminSession,
    );
    assert.equal(adminPromotes.statusCode, 403);
    const adminTransfers = await postForm(
      t,
      `/dashboard/team/members/${admin.userId}/transfer`,
      { csrf_token: adminSession.csrf },
      adminSession,
    );
    assert.equal(adminTransfers.statusCode, 403);
    assert.equal(await roleOf(t, owner.userId), 'owner');
    assert.equal(await roleOf(t, admin.userId), 'admin');
    const after = await t.testStore.store.query('SELECT count(*) AS n FROM audit_log WHERE merchant_id = $1', [m]);
    assert.deepEqual(after, before, 'refused changes write no audit row');

    // Transfer: the admin becomes owner, the owner admin; then the old owner can be demoted.
    const transfer = await postForm(
      t,
      `/dashboard/team/members/${admin.userId}/transfer`,
      { csrf_token: ownerSession.csrf },
      ownerSession,
    );
    assert.equal(transfer.statusCode, 303, transfer.body);
    assert.equal(await roleOf(t, admin.userId), 'owner');
    assert.equal(await roleOf(t, owner.userId), 'admin');
    assert.equal(await auditCount(t, m, 'member.ownership_transferred', admin.userId), 1);
    const newOwnerSession = await signIn(t, clock, { ...admin, role: 'owner' });
    const change = await postForm(
      t,
      `/dashboard/team/members/${owner.userId}/role`,
      { csrf_token: newOwnerSession.csrf, role: 'viewer' },
      newOwnerSession,
    );
    assert.equal(change.statusCode, 303, change.body);
    assert.equal(await roleOf(t, owner.userId), 'viewer');
    assert.equal(await auditCount(t, m, 'member.role_changed', owner.userId), 1);
    // The old owner's open session now acts as a viewer: the team forms are gone and refused.
    const asViewer = await postForm(
      t,
      '/dashboard/team/invitations',
      { csrf_token: ownerSession.csrf, email: 'x@example.com', role: 'viewer' },
      ownerSession,
    );
    assert.equal(asViewer.statusCode, 403);
  });

  it('removing a member ends their sessions at once', async () => {
    const { t, clock } = ctx;
    const merchant = await t.merchants.createMerchant('Team removal', TEST_OPERATOR);
    const m = merchant.merchant.id;
    const owner = await addPerson(t, m, 'owner');
    const support = await addPerson(t, m, 'support');
    const ownerSession = await signIn(t, clock, owner);
    const supportSession = await signIn(t, clock, support);
    assert.equal((await getPage(t, '/dashboard/payments', supportSession)).statusCode, 200);
    const removed = await postForm(
      t,
      `/dashboard/team/members/${support.userId}/remove`,
      { csrf_token: ownerSession.csrf },
      ownerSession,
    );
    assert.equal(removed.statusCode, 303, removed.body);
    const page = await getPage(t, '/dashboard/payments', supportSession);
    assert.equal(page.statusCode, 303);
    assert.equal(page.headers['location'], '/dashboard/login');
    assert.equal(await auditCount(t, m, 'member.removed', support.userId), 1);
    // And they cannot sign in again.
    clock.advance(30_000);
    const again = await passwordAttempt(support.email, support.password, '10.3.0.1');
    assert.equal(again.statusCode, 401);
    // Sign-out writes its row.
    const out = await postForm(t, '/dashboard/logout', { csrf_token: ownerSession.csrf }, ownerSession);
    assert.equal(out.statusCode, 303);
    assert.equal(await auditCount(t, m, 'user.signed_out', owner.userId), 1);
  });
});

describe('first start and the CLI', () => {
  it('a merchant without people gets one set-up link for its owner, who gives their e-mail at set-up', async () => {
    const { t, clock } = ctx;
    const merchant = await t.merchants.createMerchant('First start', TEST_OPERATOR);
    const m = merchant.merchant.id;
    const made = await firstOwnerLink(teamDeps(t), m);
    assert.ok(made !== undefined);
    assert.equal(made.invitation.role, 'owner');
    const token = tokenOfLink(made.link);
    const setup = await getPage(t, `/dashboard/invitations/${token}`);
    assert.equal(setup.statusCode, 200);
    assert.match(setup.body, /id="setup-email"/);
    const secret = /id="totp-secret">([A-Z2-7]+)</.exec(setup.body)?.[1] ?? '';
    const fields = {
      email: 'Founder@Example.com',
      password: 'founder password long',
      password_again: 'founder password long',
      totp_secret: secret,
      totp_signature: signSetupSecret(teamDeps(t), token, secret),
      code: totpCodeAt(secret, clock.now()),
    };
    const noEmail = await postForm(t, `/dashboard/invitations/${token}`, { ...fields, email: 'not an e-mail' });
    assert.equal(noEmail.statusCode, 400);
    const joined = await postForm(t, `/dashboard/invitations/${token}`, fields);
    assert.equal(joined.statusCode, 200, joined.body);
    const rows = await t.testStore.store.query<{ email: string; role: string }>(
      'SELECT email, role FROM users WHERE merchant_id = $1',
      [m],
    );
    assert.deepEqual(rows, [{ email: 'founder@example.com', role: 'owner' }]);
    // Once someone joined, no more first-start links.
    assert.equal(await firstOwnerLink(teamDeps(t), m), undefined);
  });

  it('tributary users create prints a set-up link; users list shows people and invitations', async () => {
    const { t, clock } = ctx;
    const merchant = await t.merchants.createMerchant('CLI team', TEST_OPERATOR);
    const deps = { store: t.testStore.store, clock, secret: TEST_SECRET, publicBaseUrl: PUBLIC_BASE_URL };
    const created = await runAdminCommand(deps, {
      command: 'users create',
      arg: null,
      options: { merchant: merchant.merchant.id, email: 'ops@example.com', role: 'admin' },
    });
    const value = created.value as { setup_url: string; role: string; email: string };
    assert.equal(value.role, 'admin');
    assert.match(value.setup_url, /^http:\/\/127\.0\.0\.1:8080\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    assert.ok(created.human.includes(value.setup_url));
    const listed = await runAdminCommand(deps, { command: 'users list', arg: null, options: { merchant: merchant.merchant.id } });
    const list = listed.value as { users: unknown[]; invitations: { email: string; role: string }[] };
    assert.deepEqual(list.users, []);
    assert.deepEqual(
      list.invitations.map((i) => [i.email, i.role]),
      [['ops@example.com', 'admin']],
    );
    await assert.rejects(
      runAdminCommand(deps, {
        command: 'users create',
        arg: null,
        options: { merchant: merchant.merchant.id, email: 'bad', role: 'owner' },
      }),
      /e-mail/,
    );
    await assert.rejects(
      runAdminCommand(deps, { command: 'users create', arg: null, options: { merchant: 'mer_nope', email: 'a@example.com' } }),
      /No merchant/,
    );
  });
});

describe('invitation mail', () => {
  it('with SMTP_URL, the invitation link is also mailed to the invited address', async () => {
    const { t } = ctx;
    const smtp = await startSmtpReceiver();
    try {
      const merchant = await t.merchants.createMerchant('Mailing shop', TEST_OPERATOR);
      const mailInvitation = createInvitationMailer({ url: smtp.url, from: 'Tributary <team@example.com>' });
      const invited = await inviteAsOperator(
        { ...teamDeps(t), mailInvitation },
        { merchantId: merchant.merchant.id, email: 'mailed@example.com', role: 'finance', operator: 'test' },
      );
      assert.ok(invited.ok);
      assert.equal(invited.mailed, true);
      assert.equal(smtp.mails.length, 1);
      const mail = smtp.mails[0];
      assert.deepEqual(mail?.to, ['<mailed@example.com>']);
      assert.ok(mail?.data.replace(/=\r\n/g, '').includes(invited.link), 'the mail carries the link');
      assert.match(mail?.data ?? '', /Subject: You are invited to Mailing shop on Tributary/);
    } finally {
      await smtp.close();
    }
  });
});
