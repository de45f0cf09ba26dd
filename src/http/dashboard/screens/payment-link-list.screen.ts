import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type ErrorDetail, httpStatusOf } from '../../../lib/error-catalogue.ts';
import { isIdOf } from '../../../lib/ids.ts';
import {
  createPaymentLink,
  EMPTY_SUMMARY,
  listPaymentLinks,
  type PaymentLink,
  type PaymentLinkSummary,
  paymentLinkStatus,
  summariesOfPaymentLinks,
} from '../../../modules/payment-links/index.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { paymentLinkInput } from '../../routes/payment_link/payment-link-input.ts';
import { CREATE_LIMITS } from '../../schemas/payment.schema.ts';
import { PAYMENT_LINK_MAX_USES } from '../../schemas/payment-link.schema.ts';
import { csrfField, type Frame, money, type Notice, page, status, when } from '../dashboard-layout.ts';
import {
  formKeyOf,
  formOf,
  newFormKey,
  noticeOf,
  PAGE_SIZE,
  queryOf,
  redirect,
  type ScreenDeps,
  send,
  sessionRoute,
  signedIn,
} from '../dashboard-plugin.ts';
import { issuesByField, linkAmount, linkUses } from './payment-link.view.ts';

/** The create form's fields, as typed (kept on a refused create so nothing has to be typed again). */
type FormValues = Record<'amount' | 'amount_min' | 'amount_max' | 'currency' | 'description' | 'max_uses' | 'expires_at', string>;

const EMPTY_FORM: FormValues = {
  amount: '',
  amount_min: '',
  amount_max: '',
  currency: 'IDR',
  description: '',
  max_uses: '',
  expires_at: '',
};

interface CreateForm {
  values: FormValues;
  /** Field → the API's messages for it ('' : about the whole form). */
  issues: Map<string, string[]>;
  idempotencyKey: string;
}

/**
 * Payment links (`GET /dashboard/payment-links`): newest first, a page at a time, with each
 * link's amount or bounds, uses left and what it collected; and the create form
 * (`POST /dashboard/payment-links`), which goes through the same checks as `POST
 * /payment_link/create` and shows their messages next to the fields.
 */
export function registerPaymentLinkListScreen(dashboard: FastifyInstance, deps: ScreenDeps): void {
  const show = async (
    request: FastifyRequest,
    reply: FastifyReply,
    statusCode: number,
    notice: Notice,
    form: CreateForm,
    startingAfter?: string,
  ) => {
    const { scope, frame } = signedIn(request);
    const listed = await listPaymentLinks(deps.store, scope.merchantId, scope.environment, {
      limit: PAGE_SIZE,
      ...(startingAfter === undefined ? {} : { startingAfter }),
    });
    // A cursor that no longer exists starts the list over.
    if (!listed.ok) return redirect(reply, '/dashboard/payment-links');
    const now = deps.clock.now();
    const summaries = await summariesOfPaymentLinks(
      deps.store,
      scope.merchantId,
      scope.environment,
      listed.links.map((l) => l.id),
      now,
    );
    return send(
      reply,
      statusCode,
      linksPage(frame('payment-links'), { links: listed.links, summaries, hasMore: listed.hasMore, now }, form, notice),
    );
  };

  dashboard.get('/payment-links', sessionRoute('payments.read'), async (request, reply) => {
    const after = queryOf(request)['starting_after'];
    const form: CreateForm = { values: EMPTY_FORM, issues: new Map(), idempotencyKey: newFormKey() };
    return show(
      request,
      reply,
      200,
      noticeOf(request),
      form,
      after !== undefined && isIdOf('paymentLink', after) ? after : undefined,
    );
  });

  dashboard.post('/payment-links', sessionRoute('payment_links.manage'), async (request, reply) => {
    const raw = formOf(request);
    const values = Object.fromEntries(Object.keys(EMPTY_FORM).map((name) => [name, (raw[name] ?? '').trim()])) as FormValues;
    values.currency = values.currency.toUpperCase();
    // The same form sent again (a double click, a reload) carries the same key: one link.
    const key = formKeyOf(raw);
    const refuse = (statusCode: number, message: string, details: readonly ErrorDetail[]) =>
      show(
        request,
        reply,
        statusCode,
        { kind: 'bad', text: message },
        {
          values,
          issues: issuesByField(details),
          idempotencyKey: key ?? newFormKey(),
        },
      );
    const { principal } = signedIn(request);
    const shape = formShapeIssues(values);
    const parsed = paymentLinkInput(
      {
        amount: optional(values.amount),
        amountMin: optional(values.amount_min),
        amountMax: optional(values.amount_max),
        currency: values.currency,
        description: optional(values.description) ?? null,
        channels: null,
        successUrl: null,
        cancelUrl: null,
        maxUses: shape.maxUses,
        expiresAt: shape.expiresAt,
        checkoutExpiresInSeconds: undefined,
      },
      principal.environment,
      deps.clock.now(),
    );
    if (shape.issues.length > 0 || !parsed.ok) {
      return refuse(400, 'The request has invalid fields.', [...shape.issues, ...(parsed.ok ? [] : parsed.issues)]);
    }
    const result = await createPaymentLink(deps.paymentLinks, principal, parsed.input, key);
    if (result.kind === 'failure') return refuse(httpStatusOf(result.code), result.message, result.details);
    const id = (JSON.parse(result.body) as { id: string }).id;
    return redirect(reply, `/dashboard/payment-links/${id}?notice=payment_link_created`);
  });
}

const optional = (text: string) => (text === '' ? undefined : text);

/**
 * What the API's schema checks before its handler runs (a whole number of uses, an instant, a
 * length), for form text: problems in the API's words and field names.
 */
function formShapeIssues(values: FormValues): {
  issues: ErrorDetail[];
  maxUses: number | null;
  expiresAt: string | null;
} {
  const issues: ErrorDetail[] = [];
  let maxUses: number | null = null;
  if (values.max_uses !== '') {
    const n = /^\d{1,7}$/.test(values.max_uses) ? Number(values.max_uses) : Number.NaN;
    if (n >= 1 && n <= PAYMENT_LINK_MAX_USES) maxUses = n;
    else
      issues.push({ field: 'max_uses', issue: 'invalid', message: `must be a whole number from 1 to ${PAYMENT_LINK_MAX_USES}` });
  }
  let expiresAt: string | null = null;
  if (values.expires_at !== '') {
    // A datetime-local value, read as UTC like every time on the dashboard.
    const match = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(values.expires_at);
    const d = match
      ? new Date(`${values.expires_at.length === 16 ? `${values.expires_at}:00` : values.expires_at}.000Z`)
      : undefined;
    if (d !== undefined && !Number.isNaN(d.getTime())) expiresAt = d.toISOString();
    else issues.push({ field: 'expires_at', issue: 'invalid', message: 'must be a date and time (UTC)' });
  }
  if (values.description.length > CREATE_LIMITS.descriptionMaxLength) {
    issues.push({
      field: 'description',
      issue: 'too_long',
      message: `must be at most ${CREATE_LIMITS.descriptionMaxLength} characters`,
    });
  }
  return { issues, maxUses, expiresAt };
}

function linkRow(l: PaymentLink, s: PaymentLinkSummary, now: Date): SafeHtml {
  return html`<tr data-link-id="${l.id}">
    <td><a class="mono" href="/dashboard/payment-links/${l.id}">${l.id}</a></td>
    <td>${status(paymentLinkStatus(l, now))}</td>
    <td class="num">${linkAmount(l)}${l.amount.kind === 'fixed' ? '' : html`<br /><span class="muted">payer enters</span>`}</td>
    <td>${linkUses(l, s)}</td>
    <td class="num">${money(s.collectedMinor, l.currency)}</td>
    <td>${l.description ?? ''}</td>
    <td>${when(l.createdAt)}</td>
  </tr>`;
}

/** One labelled input with the API's messages for its field under it. */
function field(form: CreateForm, name: keyof FormValues, label: string, attributes: SafeHtml): SafeHtml {
  const messages = form.issues.get(name) ?? [];
  const invalid = messages.length > 0;
  return html`<label
    >${label}
    <input
      name="${name}"
      id="link-${name}"
      value="${form.values[name]}"
      ${attributes}
      ${invalid ? html`aria-invalid="true" aria-describedby="error-${name}"` : ''}
    />
    ${invalid ? html`<span class="field-error" id="error-${name}">${messages.join('; ')}</span>` : ''}
  </label>`;
}

function createCard(frame: Frame, form: CreateForm): SafeHtml | string {
  if (!frame.may('payment_links.manage')) return '';
  const general = [...form.issues.entries()].filter(([name]) => !(name in EMPTY_FORM));
  return html`<section class="card">
    <h2>Create a payment link</h2>
    <form class="stack" method="post" action="/dashboard/payment-links" id="create-link-form" novalidate>
      ${csrfField(frame.csrfToken)}
      <input type="hidden" name="idempotency_key" value="${form.idempotencyKey}" />
      <fieldset>
        <legend>A fixed amount…</legend>
        ${field(form, 'amount', 'Amount', html`inputmode="decimal" autocomplete="off" placeholder="150000.00"`)}
      </fieldset>
      <fieldset>
        <legend>…or the payer enters an amount between</legend>
        ${field(form, 'amount_min', 'At least', html`inputmode="decimal" autocomplete="off"`)}
        ${field(form, 'amount_max', 'At most', html`inputmode="decimal" autocomplete="off"`)}
      </fieldset>
      ${field(form, 'currency', 'Currency', html`maxlength="3" autocomplete="off" required`)}
      ${field(form, 'description', 'Description (payers see it)', html`maxlength="${CREATE_LIMITS.descriptionMaxLength}"`)}
      ${field(form, 'max_uses', 'Max uses (empty: unlimited)', html`type="number" min="1" max="${PAYMENT_LINK_MAX_USES}" step="1"`)}
      ${field(form, 'expires_at', 'Expires (UTC; empty: never)', html`type="datetime-local"`)}
      ${
        general.length === 0
          ? ''
          : html`<ul class="field-error" id="form-errors">
              ${general.map(([name, messages]) => html`<li>${name === '' ? '' : html`<code>${name}</code>: `}${messages.join('; ')}</li>`)}
            </ul>`
      }
      <div class="actions"><button type="submit" id="create-link-submit">Create link</button></div>
    </form>
  </section>`;
}

function linksPage(
  frame: Frame,
  list: { links: readonly PaymentLink[]; summaries: Map<string, PaymentLinkSummary>; hasMore: boolean; now: Date },
  form: CreateForm,
  notice: Notice,
): string {
  const last = list.links.at(-1);
  return page(
    frame,
    'Payment links',
    notice,
    html`${createCard(frame, form)}
      <section class="card">
        ${
          list.links.length === 0
            ? html`<p id="no-links">No payment links yet.</p>`
            : html`<table id="payment-links">
                <thead>
                  <tr>
                    <th>Link</th>
                    <th>Status</th>
                    <th class="num">Amount</th>
                    <th>Uses</th>
                    <th class="num">Collected</th>
                    <th>Description</th>
                    <th>Created</th>
                  </tr>
                </thead>
                <tbody>
                  ${list.links.map((l) => linkRow(l, list.summaries.get(l.id) ?? EMPTY_SUMMARY, list.now))}
                </tbody>
              </table>`
        }
        ${
          list.hasMore && last !== undefined
            ? html`<p class="pager">
                <a id="next-page" href="/dashboard/payment-links?starting_after=${last.id}">Next page →</a>
              </p>`
            : ''
        }
      </section>`,
  );
}
