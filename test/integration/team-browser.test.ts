import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Secret, TOTP } from 'otpauth';
import type { BrowserContext, Page } from 'playwright-core';
import { inviteAsOperator, roleMay, type Permission } from '../../src/modules/team/index.ts';
import { ROLES } from '../../src/kernel/index.ts';
import { seriousAxeViolations } from '../harness/axe.ts';
import { chromiumMissing, launchChromium } from '../harness/chromium.ts';
import { addPerson, type Person, teamDeps } from '../harness/team-fixtures.ts';
import { appForSuite } from '../harness/test-app.ts';

/**
 * People in a real browser (Debian's Chromium, playwright-core): the first owner sets up from a
 * link (password, the QR's secret into an authenticator — here otpauth computing the code —, the
 * recovery codes shown once), signs in with the code, invites a colleague who joins in the same
 * way, each role sees only the tabs and actions it may use, and a removed person's open session
 * stops working. Screenshots under test-output/team/; axe-core on every new page.
 */
const SKIP = chromiumMissing('the team browser test');
const OUTPUT_DIR = join(process.cwd(), 'test-output', 'team');
const UI_TIMEOUT_MS = 15_000;

/** The tabs and what opening each needs (dashboard-layout.ts NAV). */
const TABS: readonly [string, Permission][] = [
  ['#nav-payments', 'payments.read'],
  ['#nav-webhooks', 'webhooks.read'],
  ['#nav-keys', 'keys.read'],
  ['#nav-balance', 'balance.read'],
  ['#nav-team', 'team.read'],
];

const codeOf = (secret: string, at: Date) =>
  new TOTP({ algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) }).generate({ timestamp: at.getTime() });

describe('team in Chromium', { skip: SKIP }, () => {
  const ctx = appForSuite();
  let context: BrowserContext;
  let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;
  let page: Page;
  const problems: string[] = [];
  const axeFindings: string[] = [];
  let owner: { email: string; password: string; secret: string } | undefined;

  before(async () => {
    mkdirSync(OUTPUT_DIR, { recursive: true });
    browser = await launchChromium({ viewport: { width: 1280, height: 900 }, timeoutMs: UI_TIMEOUT_MS });
    context = browser.context;
    page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT_MS);
    page.on('console', (m) => {
      // The wrong code's answer (401) and a role's refused page (403) are on purpose; anything else is a problem.
      if (m.type() === 'error' && !/status of 40[13]/.test(m.text())) problems.push(`${m.type()}: ${m.text()}`);
    });
    page.on('pageerror', (e) => problems.push(`pageerror: ${e.message}`));
  });
  after(async () => {
    await browser?.close();
  });

  const shot = (name: string) => page.screenshot({ path: join(OUTPUT_DIR, `${name}.png`), fullPage: true });
  const axe = async (what: string) => {
    for (const v of await seriousAxeViolations(page))
      axeFindings.push(`${what}: ${v.impact} ${v.id} (${v.help}) at ${v.targets.join(', ')}`);
  };
  /** The app's own origin for a link made with PUBLIC_BASE_URL. */
  const local = (link: string) => `${ctx.t.baseUrl}${new URL(link).pathname}`;

  /** Sets up from an invitation link in the browser; returns the secret the page showed. */
  const joinTeam = async (link: string, password: string, name: string, email?: string): Promise<string> => {
    await page.goto(local(link));
    await page.locator('#setup-form').waitFor();
    await axe(`set-up page (${name})`);
    await shot(`${name}-setup`);
    if (email !== undefined) await page.fill('#setup-email', email);
    await page.fill('#new-password', password);
    await page.fill('#new-password-again', password);
    assert.equal(await page.locator('figure.qr svg').count(), 1, 'the QR code is on the page');
    const secret = ((await page.locator('#totp-secret').textContent()) ?? '').trim();
    assert.match(secret, /^[A-Z2-7]{32}$/);
    await page.fill('#setup-code', codeOf(secret, ctx.clock.now()));
    await page.click('#join');
    await page.locator('#recovery-codes').waitFor();
    assert.equal(await page.locator('#recovery-codes li').count(), 10);
    await axe(`recovery codes (${name})`);
    await shot(`${name}-recovery-codes`);
    return secret;
  };

  const signIn = async (email: string, password: string, secret: string, name: string) => {
    ctx.clock.advance(30_000);
    await page.goto(`${ctx.t.baseUrl}/dashboard/login`);
    await page.fill('#email', email);
    await page.fill('#password', password);
    await page.click('#sign-in');
    await page.locator('#code-form').waitFor();
    await axe(`code page (${name})`);
    await page.fill('#code', codeOf(secret, ctx.clock.now()));
    await page.click('#verify');
    await page.locator('#signed-in-as').waitFor();
  };

  it('the first owner sets up from the link, signs in with TOTP and invites a colleague who joins', async () => {
    const { t } = ctx;
    const first = await inviteAsOperator(teamDeps(t), {
      merchantId: t.a.id,
      email: 'owner@example.com',
      role: 'owner',
      operator: 'test',
    });
    assert.ok(first.ok);
    owner = { email: 'owner@example.com', password: 'owner password long', secret: '' };
    owner.secret = await joinTeam(first.link, owner.password, 'owner');
    await page.click('#continue-sign-in');
    await page.locator('#login-form').waitFor();
    await axe('sign-in page');
    await shot('sign-in');
    // A wrong code: the generic message, no session.
    ctx.clock.advance(30_000);
    await page.fill('#email', owner.email);
    await page.fill('#password', owner.password);
    await page.click('#sign-in');
    await page.locator('#code-form').waitFor();
    await shot('code');
    const wrong = codeOf(owner.secret, new Date(ctx.clock.now().getTime() + 5 * 60_000));
    await page.fill('#code', wrong);
    await page.click('#verify');
    assert.equal((await page.locator('#notice').textContent())?.trim(), 'E-mail, password or code is not right.');
    await signIn(owner.email, owner.password, owner.secret, 'owner');
    assert.match((await page.locator('#signed-in-as').textContent()) ?? '', /owner@example\.com · owner/);

    await page.click('#nav-team');
    await page.locator('#invite-form').waitFor();
    await page.fill('#invite-email', 'support@example.com');
    await page.selectOption('#invite-role', 'support');
    await page.click('#invite');
    const link = ((await page.locator('#invite-url').textContent()) ?? '').trim();
    assert.match(link, /\/dashboard\/invitations\/[A-Za-z0-9_-]{43}$/);
    assert.equal(await page.locator('#invitations tbody tr').count(), 1);
    await axe('team page (owner)');
    await shot('team-owner');

    const saved = await context.cookies();
    await context.clearCookies();
    const supportSecret = await joinTeam(link, 'support password long', 'support');
    await signIn('support@example.com', 'support password long', supportSecret, 'support');
    await page.goto(`${t.baseUrl}/dashboard/team`);
    assert.equal(await page.locator('#invite-form').count(), 0, 'support cannot invite');
    assert.equal(await page.locator('.remove-form').count(), 0);
    await shot('team-support');
    await context.clearCookies();
    await context.addCookies(saved);
  });

  it('each role sees only the tabs and actions it may use', async () => {
    const { t } = ctx;
    for (const role of ROLES) {
      const person: Person = await addPerson(t, t.a.id, role);
      await context.clearCookies();
      await signIn(person.email, person.password, person.totpSecret, role);
      await page.goto(`${t.baseUrl}/dashboard/team`);
      for (const [selector, permission] of TABS) {
        assert.equal(await page.locator(selector).count(), roleMay(role, permission) ? 1 : 0, `${role}: ${selector}`);
      }
      assert.equal(await page.locator('#invite-form').count(), roleMay(role, 'team.manage') ? 1 : 0, `${role}: invite form`);
      assert.equal(
        (await page.locator('.transfer-form').count()) > 0,
        roleMay(role, 'team.transfer_ownership'),
        `${role}: transfer buttons`,
      );
      await shot(`team-as-${role}`);
      await page.goto(`${t.baseUrl}/dashboard/keys`);
      if (roleMay(role, 'keys.read')) {
        assert.equal(await page.locator('#create-key').count(), roleMay(role, 'keys.manage') ? 1 : 0, `${role}: create key`);
      } else {
        assert.match((await page.locator('#error-message').textContent()) ?? '', /Your role does not allow this/);
      }
      await page.goto(`${t.baseUrl}/dashboard/reconciliation`);
      assert.equal(
        await page.locator('#reconcile-form').count(),
        roleMay(role, 'reconciliation.run') ? 1 : 0,
        `${role}: reconcile`,
      );
    }
  });

  it('removing a member ends their open session in their browser', async () => {
    const { t } = ctx;
    assert.ok(owner !== undefined);
    const viewer = await addPerson(t, t.a.id, 'viewer');
    await context.clearCookies();
    await signIn(viewer.email, viewer.password, viewer.totpSecret, 'viewer');
    const viewerCookies = await context.cookies();
    await context.clearCookies();
    await signIn(owner.email, owner.password, owner.secret, 'owner');
    await page.goto(`${t.baseUrl}/dashboard/team`);
    await page.locator(`#member-${viewer.userId} .remove-form button`).click();
    await page.locator('#notice').waitFor();
    assert.match((await page.locator('#notice').textContent()) ?? '', /Member removed/);
    assert.equal(await page.locator(`#member-${viewer.userId}`).count(), 0);
    await shot('team-after-removal');
    await context.clearCookies();
    await context.addCookies(viewerCookies);
    await page.goto(`${t.baseUrl}/dashboard/payments`);
    await page.locator('#login-form').waitFor();
    assert.ok(page.url().endsWith('/dashboard/login'));
  });

  it('has no console errors and no serious accessibility findings', () => {
    assert.deepEqual(problems, []);
    assert.deepEqual(axeFindings, []);
  });
});
