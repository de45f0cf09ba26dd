import {
  bucketText,
  type CurrencyTotals,
  type DayAmount,
  type Overview,
  percentileBucket,
  type SuccessRate,
  TTP_BUCKETS,
  ttpBucket,
  durationText,
} from '../../../modules/overview/index.ts';
import { PAYMENT_STATUSES } from '../../../modules/payments/payment-states.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { barChart, basisPoints, countText, maxOf, meterChart, percentText } from '../charts/index.ts';
import { type Frame, money, page, when } from '../dashboard-layout.ts';

/** After this long without a refresh the freshness note becomes a warning (the job is not running). */
export const STALE_AFTER_MS = 5 * 60_000;

/** The overview page (docs/overview.md): every chart with its numbers as text. */
export function overviewPage(frame: Frame, o: Overview, now: Date): string {
  const from = o.days[0] ?? '';
  const to = o.days[o.days.length - 1] ?? '';
  return page(
    frame,
    'Overview',
    undefined,
    html`${freshness(o, now)}
      <p class="muted" id="window">Last ${o.days.length} days, ${from} to ${to} (UTC), ${frame.principal.environment}.</p>
      ${
        o.refreshedAt === null
          ? ''
          : html`${summary(o)} ${volumeSection(o)} ${ratesSection(o)} ${timeToPaySection(o)} ${statusSection(o)}
            ${refundsSection(o)}`
      }`,
  );
}

function freshness(o: Overview, now: Date): SafeHtml {
  if (o.refreshedAt === null) {
    return html`<p class="notice bad" id="freshness" role="status">
      The overview has not been computed yet: its numbers appear after the first refresh (every minute while the server runs its
      jobs).
    </p>`;
  }
  const ageMs = Math.max(0, now.getTime() - o.refreshedAt.getTime());
  const age = ageText(ageMs);
  if (ageMs > STALE_AFTER_MS) {
    return html`<p class="notice bad" id="freshness" role="status">
      These numbers are from ${when(o.refreshedAt)} (${age} ago): the refresh, every minute, has not run since. Payments made
      after it are not counted. Check that the server runs its jobs (RUN_JOBS).
    </p>`;
  }
  return html`<p class="freshness" id="freshness">
    Updated ${when(o.refreshedAt)} (${age} ago); refreshed every minute. Payments newer than that show on the next refresh.
  </p>`;
}

function ageText(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h`;
  return `${Math.floor(s / 86_400)} d`;
}

function summary(o: Overview): SafeHtml {
  const paid = o.statuses.succeeded + o.statuses.reversed;
  const ended = paid + o.statuses.failed + o.statuses.expired + o.statuses.canceled;
  return html`<section class="card" aria-labelledby="summary-h">
    <h2 id="summary-h">In the last ${o.days.length} days</h2>
    <ul class="stats" id="summary">
      <li><span class="k">Payments created</span><span class="v" id="created-count">${countText(o.createdCount)}</span></li>
      <li><span class="k">Paid</span><span class="v" id="paid-count">${countText(paid)}</span></li>
      <li>
        <span class="k">Success rate (of ended)</span
        ><span class="v" id="success-rate">${percentText(basisPoints(paid, ended))}</span>
      </li>
      ${o.volume.map(
        (v) =>
          html`<li>
            <span class="k">Gross volume ${v.currency}</span
            ><span class="v" data-currency="${v.currency}">${money(sumMinor(v.days), v.currency)}</span>
          </li>`,
      )}
    </ul>
  </section>`;
}

const sumMinor = (days: readonly DayAmount[]) => days.reduce((s, d) => s + d.minor, 0n);
const shortDay = (day: string) => day.slice(5).replace('-', '/');

function dayBars(days: readonly DayAmount[], currency: string) {
  return days.map((d) => ({
    label: shortDay(d.day),
    longLabel: d.day,
    value: d.minor,
    text: money(d.minor, currency),
    extra: [countText(d.count)],
  }));
}

function volumeSection(o: Overview): SafeHtml {
  return html`<section class="card" aria-labelledby="volume-h">
    <h2 id="volume-h">Gross volume per day</h2>
    ${
      o.volume.length === 0
        ? html`<p id="no-volume">No payment was paid in these days.</p>`
        : o.volume.map((v) =>
            barChart({
              id: `volume-${v.currency}`,
              title: `Gross volume per day in ${v.currency} (payments paid that day), ${v.days[0]?.day ?? ''} to ${v.days[v.days.length - 1]?.day ?? ''}`,
              bars: dayBars(v.days, v.currency),
              columns: ['Day (UTC)', 'Gross volume', 'Payments paid'],
              labelEvery: 5,
            }),
          )
    }
  </section>`;
}

const nameOr = (key: string, none: string) => (key === '' ? none : key);

function rateRows(rates: readonly SuccessRate[], none: string) {
  return rates.map((r) => {
    const bp = basisPoints(r.paid, r.ended);
    return {
      label: nameOr(r.key, none),
      value: bp ?? 0n,
      text: percentText(bp),
      extra: [`${countText(r.paid)} of ${countText(r.ended)}`, countText(r.open)],
    };
  });
}

function ratesSection(o: Overview): SafeHtml {
  const columns = ['', 'Success rate', 'Paid of ended', 'Still open'];
  return html`<section class="card" aria-labelledby="rates-h">
    <h2 id="rates-h">Success rate</h2>
    <p class="muted">
      Of the payments created in these days that have ended (succeeded, reversed, failed, expired, canceled), the share paid.
    </p>
    <div>
      ${meterChart({
        id: 'rate-channel',
        title: 'Per channel',
        columns: ['Channel', ...columns.slice(1)],
        rows: rateRows(o.byChannel, 'none chosen'),
        max: 10_000n,
        kind: 'ok',
      })}
      ${meterChart({
        id: 'rate-connector',
        title: 'Per connector',
        columns: ['Connector', ...columns.slice(1)],
        rows: rateRows(o.byConnector, 'no attempt'),
        max: 10_000n,
        kind: 'ok',
      })}
    </div>
  </section>`;
}

function timeToPaySection(o: Overview): SafeHtml {
  const median = percentileBucket(o.timeToPay, 50);
  const p90 = percentileBucket(o.timeToPay, 90);
  const bars = Array.from({ length: TTP_BUCKETS }, (_, i) => {
    const b = ttpBucket(i);
    const count = BigInt(o.timeToPay[i] ?? 0);
    return {
      label: b.toS === undefined ? `≥${durationText(b.fromS)}` : `<${durationText(b.toS)}`,
      longLabel: bucketText(b),
      value: count,
      text: countText(count),
      marked: i === median?.index || i === p90?.index,
    };
  });
  return html`<section class="card" aria-labelledby="ttp-h">
    <h2 id="ttp-h">Time to pay</h2>
    ${
      median === undefined || p90 === undefined
        ? html`<p id="no-ttp">No payment created in these days has been paid yet.</p>`
        : html`<ul class="stats">
              <li><span class="k">Median</span><span class="v" id="ttp-median">${bucketText(median)}</span></li>
              <li><span class="k">90th percentile</span><span class="v" id="ttp-p90">${bucketText(p90)}</span></li>
            </ul>
            ${barChart({
              id: 'ttp-chart',
              title: 'Paid payments by time from creation to payment (median and 90th percentile buckets highlighted)',
              bars,
              columns: ['Time to pay', 'Payments'],
            })}`
    }
  </section>`;
}

function statusSection(o: Overview): SafeHtml {
  const counts = PAYMENT_STATUSES.map((s) => o.statuses[s]);
  return html`<section class="card" aria-labelledby="status-h">
    <h2 id="status-h">Payments by status</h2>
    ${meterChart({
      id: 'statuses',
      title: `The ${countText(o.createdCount)} payments created in these days, by their status now`,
      columns: ['Status', 'Payments', 'Share'],
      rows: PAYMENT_STATUSES.map((s) => ({
        label: s,
        value: o.statuses[s],
        text: countText(o.statuses[s]),
        extra: [percentText(basisPoints(o.statuses[s], o.createdCount))],
      })),
      max: maxOf(counts),
    })}
  </section>`;
}

function totalsTable(id: string, caption: string, totals: readonly CurrencyTotals[], empty: string): SafeHtml {
  if (totals.length === 0) return html`<p id="${id}">${empty}</p>`;
  return html`<table id="${id}" class="chart-table">
    <caption>
      ${caption}
    </caption>
    <thead>
      <tr>
        <th scope="col">Currency</th>
        <th scope="col" class="num">Count</th>
        <th scope="col" class="num">Amount</th>
      </tr>
    </thead>
    <tbody>
      ${totals.map(
        (t) =>
          html`<tr data-currency="${t.currency}">
            <th scope="row">${t.currency}</th>
            <td class="num count">${countText(t.count)}</td>
            <td class="num amount">${money(t.minor, t.currency)}</td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function refundsSection(o: Overview): SafeHtml {
  return html`<section class="card" aria-labelledby="refunds-h">
    <h2 id="refunds-h">Refunds and late payments</h2>
    <div class="charts">
      <div>
        ${totalsTable('refund-totals', 'Refunds that succeeded in these days', o.refunds, 'No refund succeeded in these days.')}
        ${o.refundDays.map((r) =>
          barChart({
            id: `refunds-${r.currency}`,
            title: `Refunded per day in ${r.currency}`,
            bars: dayBars(r.days, r.currency),
            columns: ['Day (UTC)', 'Refunded', 'Refunds'],
            labelEvery: 5,
          }),
        )}
      </div>
      <div>
        ${totalsTable(
          'late-totals',
          'Late payments: money that arrived after its payment closed (payments created in these days)',
          o.late,
          'No late payment on the payments created in these days.',
        )}
        <p class="muted">Late money is owed to the payer unless the payment accepted it (docs/payments.md, "Late payments").</p>
      </div>
    </div>
  </section>`;
}
