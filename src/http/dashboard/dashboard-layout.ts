import { createHash } from 'node:crypto';
import { isCurrencyCode } from '../../lib/currencies.ts';
import { formatHumanAmount } from '../../lib/money-display.ts';
import { reportedMajorText } from '../../lib/money.ts';
import { html, htmlDocument, type SafeHtml, trusted } from '../pages/html.ts';
import type { Principal } from '../../kernel/index.ts';
import type { Permission } from '../../modules/team/index.ts';

/**
 * The frame of every dashboard page: one stylesheet allowed by hash, no script (but the copy
 * buttons' on the pages that have some, by hash too), forms posting only to our own origin. Everything is rendered on the server from the same module
 * functions the API routes call; the pages work without JavaScript.
 */
const STYLE = `
:root{color-scheme:light;--ink:#1a1f36;--muted:#5e6577;--line:#e3e6ee;--accent:#2546d0;--ok:#137a3a;--bad:#b42318;--warn:#8a5a00;--bg:#f4f6fb}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
header{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem;background:#fff;border-bottom:1px solid var(--line);padding:.6rem 1rem}
header .brand{font-weight:700}
header nav{display:flex;flex-wrap:wrap;gap:.25rem .75rem;flex:1}
header nav a{color:var(--ink);text-decoration:none;padding:.2rem .1rem;border-bottom:2px solid transparent}
header nav a.current{border-bottom-color:var(--accent);font-weight:600}
main{max-width:72rem;margin:0 auto;padding:1rem}
h1{font-size:1.35rem;margin:.2rem 0 1rem;overflow-wrap:anywhere}
h2{font-size:1.05rem;margin:0 0 .6rem}
.card{background:#fff;border:1px solid var(--line);border-radius:10px;padding:1rem;margin:0 0 1rem;overflow-x:auto}
.env{border-radius:999px;padding:.1rem .6rem;font-size:.8rem;font-weight:600}
.env-sandbox{background:#fff4d6;color:var(--warn);border:1px solid #f0d48a}
.env-production{background:#e6f4ea;color:var(--ok);border:1px solid #a6d8b5}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600;font-size:.8rem;text-transform:uppercase;letter-spacing:.02em}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
code,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;font-size:.85em}
a{color:var(--accent)}
.status{display:inline-block;border-radius:4px;padding:0 .35rem;font-size:.8rem;font-weight:600;background:#eef0f5}
.s-succeeded,.s-matched,.s-enabled,.s-active,.s-processed,.s-ok,.s-completed{background:#e6f4ea;color:var(--ok)}
.s-failed,.s-reversed,.s-revoked,.s-disabled,.s-discrepancies,.s-bad{background:#fdecea;color:var(--bad)}
.s-pending,.s-processing,.s-received,.s-rolled,.s-issued,.s-started,.s-open{background:#fff4d6;color:var(--warn)}
form.inline{display:inline}
form.filters{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
label{display:flex;flex-direction:column;gap:.15rem;font-size:.8rem;color:var(--muted)}
input[type=number]{width:5.5rem}
input,select,button{font:inherit;padding:.3rem .45rem;border:1px solid #c9cede;border-radius:6px;background:#fff;color:var(--ink)}
button{background:var(--accent);color:#fff;border-color:var(--accent);cursor:pointer}
button.secondary{background:#fff;color:var(--accent)}
button.danger{background:#fff;color:var(--bad);border-color:#e7b4ae}
.notice{border-radius:8px;padding:.6rem .8rem;margin:0 0 1rem;border:1px solid}
.notice.ok{background:#e6f4ea;border-color:#a6d8b5;color:var(--ok)}
.notice.bad{background:#fdecea;border-color:#f1b8b2;color:var(--bad)}
.secret{display:block;font-size:1.05rem;padding:.5rem;background:#fff4d6;border:1px dashed #d9a400;border-radius:6px;overflow-wrap:anywhere;user-select:all}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
ol.timeline{list-style:none;margin:0;padding:0}
ol.timeline>li{border-left:3px solid var(--line);padding:.2rem 0 .8rem .8rem;margin-left:.3rem}
ol.timeline>li.k-event{border-left-color:#9db0f0}
ol.timeline>li.k-notification{border-left-color:#f0d48a}
ol.timeline>li.k-refund,ol.timeline>li.k-payment_closed,ol.timeline>li.k-expired{border-left-color:#e7b4ae}
ol.timeline>li.k-selection{border-left-color:#f0d48a}
ol.timeline>li.k-completed{border-left-color:#a6d8b5}
.when{color:var(--muted);font-size:.8rem}
ul.deliveries{margin:.3rem 0 0;padding-left:1.1rem}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f8fb;border:1px solid var(--line);border-radius:6px;padding:.4rem;margin:.25rem 0;max-height:12rem;overflow:auto;font-size:.8rem}
.muted{color:var(--muted)}
.pager{margin-top:.8rem}
.login{max-width:26rem;margin:4rem auto}
.login form{display:flex;flex-direction:column;gap:.8rem}
.link-url{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem}
.link-url code{flex:1 1 16rem;padding:.45rem .5rem;background:#f7f8fb;border:1px solid var(--line);border-radius:6px;overflow-wrap:anywhere;user-select:all}
figure.qr{margin:.8rem 0 0}
figure.qr svg{display:block;width:240px;max-width:100%;height:auto;border:1px solid var(--line);border-radius:6px;background:#fff}
figure.qr figcaption{color:var(--muted);font-size:.8rem;margin-top:.3rem}
form.stack{display:grid;grid-template-columns:repeat(auto-fill,minmax(13rem,1fr));gap:.6rem 1rem;align-items:start}
form.stack fieldset{grid-column:1/-1;display:flex;flex-wrap:wrap;gap:.5rem 1rem;border:1px solid var(--line);border-radius:8px;margin:0;padding:.5rem .7rem}
form.stack fieldset label{flex:1 1 12rem;max-width:20rem}
form.stack legend{font-size:.8rem;color:var(--muted);padding:0 .3rem}
form.stack .actions{grid-column:1/-1}
form.stack input{width:100%}
.field-error{color:var(--bad);font-size:.8rem}
input[aria-invalid=true]{border-color:var(--bad)}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}
.charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(22rem,100%),1fr));gap:0 1rem}
.charts>*{min-width:0}
figure.chart{margin:0 0 .8rem}
figure.chart svg.chart-svg{display:block;width:100%;height:auto;background:#fbfcfe;border:1px solid var(--line);border-radius:6px}
figure.chart figcaption{color:var(--muted);font-size:.8rem;margin:.3rem 0}
svg .bar{fill:var(--accent)}
svg .bar.mark{fill:var(--warn)}
svg .bar.bad{fill:var(--bad)}
svg .bar.ok{fill:var(--ok)}
svg .track{fill:#eef0f5}
svg .axis{stroke:#c9cede;stroke-width:1}
svg .tick{font-size:11px;fill:var(--muted);text-anchor:middle}
th[scope=row]{text-transform:none;letter-spacing:0;font-size:inherit;color:var(--ink);font-weight:500}
table.meters caption{text-align:left;font-weight:600;margin-bottom:.3rem}
td.meter-cell{width:170px}
@media (max-width:40rem){td.meter-cell,th.meter-cell{display:none!important}table.stack th[scope=row]{display:block;border:0;padding:.1rem 0;font-weight:600}}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(10rem,1fr));gap:.6rem;margin:0;padding:0;list-style:none}
.stats li{border:1px solid var(--line);border-radius:8px;padding:.5rem .7rem}
.stats .k{display:block;color:var(--muted);font-size:.8rem}
.stats .v{display:block;font-size:1.1rem;font-weight:600;font-variant-numeric:tabular-nums}
.freshness{color:var(--muted);margin:-.6rem 0 1rem}
@media (max-width:40rem){main{padding:.5rem}.card{padding:.6rem}th,td{padding:.3rem}dl.facts{grid-template-columns:1fr;gap:0}dl.facts dd{margin-bottom:.4rem}}
@media (max-width:40rem){table.stack thead{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%);white-space:nowrap}table.stack tbody,table.stack tr,table.stack td{display:block}table.stack tr{border-bottom:1px solid var(--line);padding:.35rem 0}table.stack td{border:0;padding:.1rem 0;display:grid;grid-template-columns:6.5rem minmax(0,1fr);gap:.5rem;overflow-wrap:anywhere}table.stack td::before{content:attr(data-label);color:var(--muted);font-size:.75rem;font-weight:600;text-transform:uppercase}table.stack td.num{text-align:left;white-space:normal}}
`.trim();

const STYLE_ELEMENT = trusted(`<style>${STYLE}</style>`);
const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/*
 * The one script of the dashboard, on the screens that have something to copy (a payment link's
 * URL): it shows the copy buttons, which stay hidden without JavaScript (the text is selectable
 * anyway), and writes only to the clipboard and textContent. Allowed by hash on those pages only;
 * every other page keeps a CSP with no script at all.
 */
export const COPY_SCRIPT = `
(function () {
  'use strict';
  if (!navigator.clipboard) return;
  Array.prototype.forEach.call(document.querySelectorAll('button.copy'), function (b) {
    var label = b.textContent;
    b.hidden = false;
    b.addEventListener('click', function () {
      navigator.clipboard.writeText(b.getAttribute('data-copy') || '').then(
        function () { b.textContent = b.getAttribute('data-copied') || label; },
        function () { b.textContent = label; }
      );
    });
  });
})();
`.trim();

/** Built here, not in a template, so that formatting can never add a byte inside the hashed text. */
export const COPY_SCRIPT_ELEMENT = trusted(`<script>${COPY_SCRIPT}</script>`);

/** No script, no image, no connection, no frame; forms post to this origin only. */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  `style-src ${sha256(STYLE)}`,
  "img-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
].join('; ');

/** The CSP of a page that carries COPY_SCRIPT_ELEMENT: the same, plus that script by its hash. */
export const DASHBOARD_CSP_WITH_COPY_SCRIPT = `${DASHBOARD_CSP}; script-src ${sha256(COPY_SCRIPT)}`;

/** Headers of every dashboard answer (pages, redirects and errors alike). */
export const DASHBOARD_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': DASHBOARD_CSP,
  // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on our own form
  // posts, and the origin check below needs the real one. Nothing leaves for another site either way.
  'Referrer-Policy': 'same-origin',
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
  'X-Robots-Tag': 'noindex, nofollow',
};

export type Screen =
  | 'overview'
  | 'payments'
  | 'checkouts'
  | 'payment-links'
  | 'webhooks'
  | 'keys'
  | 'balance'
  | 'settlements'
  | 'reconciliation'
  | 'team'
  | 'audit';

/** The tabs, each shown to the sessions allowed the permission its page's route names. */
const NAV: readonly { screen: Screen; href: string; label: string; permission: Permission }[] = [
  { screen: 'overview', href: '/dashboard', label: 'Overview', permission: 'payments.read' },
  { screen: 'payments', href: '/dashboard/payments', label: 'Payments', permission: 'payments.read' },
  { screen: 'checkouts', href: '/dashboard/checkouts', label: 'Checkouts', permission: 'payments.read' },
  { screen: 'payment-links', href: '/dashboard/payment-links', label: 'Payment links', permission: 'payments.read' },
  { screen: 'webhooks', href: '/dashboard/webhooks', label: 'Webhooks', permission: 'webhooks.read' },
  { screen: 'keys', href: '/dashboard/keys', label: 'API keys', permission: 'keys.read' },
  { screen: 'balance', href: '/dashboard/balance', label: 'Balance', permission: 'balance.read' },
  { screen: 'settlements', href: '/dashboard/settlements', label: 'Settlements', permission: 'payments.read' },
  { screen: 'reconciliation', href: '/dashboard/reconciliation', label: 'Reconciliation', permission: 'payments.read' },
  { screen: 'team', href: '/dashboard/team', label: 'Team', permission: 'team.read' },
  { screen: 'audit', href: '/dashboard/audit', label: 'Audit log', permission: 'audit.read' },
];

export interface Frame {
  principal: Principal;
  csrfToken: string;
  screen: Screen;
  /**
   * Whether this session may do what `permission` names (`sessionMay`, the one check): a page shows
   * a tab, a form or a button only when its route would let the session through.
   */
  may: (permission: Permission) => boolean;
}

export type Notice = { kind: 'ok' | 'bad'; text: string } | undefined;

function document(title: string, body: SafeHtml): string {
  return htmlDocument({ title: `${title} · Tributary dashboard`, referrer: 'same-origin', head: STYLE_ELEMENT, body });
}

/** The hidden anti-CSRF field of every state-changing form. */
export const csrfField = (token: string) => html`<input type="hidden" name="csrf_token" value="${token}" />`;

export function noticeBlock(notice: Notice): SafeHtml | string {
  return notice === undefined ? '' : html`<p class="notice ${notice.kind}" id="notice" role="status">${notice.text}</p>`;
}

/** An `<option>` of a select, marked selected when it is the current value. */
export function option(value: string, label: string, selected: string | undefined): SafeHtml {
  return html`<option value="${value}" ${selected === value ? html`selected` : ''}>${label}</option>`;
}

export function page(frame: Frame, title: string, notice: Notice, content: SafeHtml): string {
  const p = frame.principal;
  return document(
    title,
    html`<header>
        <span class="brand">Tributary</span>
        <span id="merchant-name">${p.merchantName}</span>
        <span class="env env-${p.environment}" id="environment">${p.environment === 'sandbox' ? 'Sandbox' : 'Production'}</span>
        <nav>
          ${NAV.filter((n) => frame.may(n.permission)).map(
            (n) =>
              html`<a href="${n.href}" id="nav-${n.screen}" class="${n.screen === frame.screen ? 'current' : ''}">${n.label}</a>`,
          )}
        </nav>
        ${
          p.actor.kind === 'user'
            ? html`<span id="signed-in-as" class="muted">${p.actor.email} · ${p.actor.role}</span>
                <form class="inline" method="post" action="/dashboard/environment">
                  ${csrfField(frame.csrfToken)}<input
                    type="hidden"
                    name="environment"
                    value="${p.environment === 'sandbox' ? 'production' : 'sandbox'}"
                  />
                  <button type="submit" class="secondary" id="switch-environment">
                    Switch to ${p.environment === 'sandbox' ? 'production' : 'sandbox'}
                  </button>
                </form>`
            : ''
        }
        <form class="inline" method="post" action="/dashboard/logout">
          ${csrfField(frame.csrfToken)}<button type="submit" class="secondary" id="logout">Sign out</button>
        </form>
      </header>
      <main id="screen-${frame.screen}">
        <h1>${title}</h1>
        ${noticeBlock(notice)} ${content}
      </main>`,
  );
}

/** A page outside a session (login, errors before login). */
export function barePage(title: string, content: SafeHtml): string {
  return document(title, html`<main class="login">${content}</main>`);
}

// ---- formatting helpers (amounts from integers of minor units, never through a float) ----

export function money(minor: bigint, currency: string): string {
  return isCurrencyCode(currency)
    ? formatHumanAmount(minor, currency)
    : `${currency} ${reportedMajorText(minor, currency)} (minor units)`;
}

export function when(d: Date | null | undefined): SafeHtml | string {
  if (d === null || d === undefined) return '—';
  const iso = d.toISOString();
  return html`<time datetime="${iso}">${iso.slice(0, 19).replace('T', ' ')} UTC</time>`;
}

export function status(value: string, text: string = value): SafeHtml {
  return html`<span class="status s-${value}">${text}</span>`;
}
