import { html, type SafeHtml } from '../../pages/html.ts';
import { scaled } from './chart-math.ts';

/**
 * Horizontal bars, one per row, each with its value written next to it (shares per channel, per
 * connector, payments by status). The text is in the page itself, so the picture is only a help:
 * each bar's SVG is `aria-hidden` and the row's words say everything (a table with a caption). On
 * a phone the table stacks (class `stack`: each cell under its column's name) and the bars go.
 */
export interface MeterRow {
  label: string;
  /** The bar's length against `max`. */
  value: bigint;
  /** The value for people (a share, a count, an amount). */
  text: string;
  /** Further cells (e.g. "312 of 340 ended"). */
  extra?: readonly string[];
}

export interface MeterChartOptions {
  id: string;
  title: string;
  columns: readonly string[];
  rows: readonly MeterRow[];
  max: bigint;
  /** A class for the bars (e.g. `rate`). */
  kind?: string;
}

const BAR_WIDTH = 160;

export function meterChart(o: MeterChartOptions): SafeHtml {
  return html`<table class="chart-table meters stack" id="${o.id}">
    <caption>
      ${o.title}
    </caption>
    <thead>
      <tr>
        ${o.columns.map((c, i) => html`<th scope="col" class="${i === 0 ? '' : 'num'}">${c}</th>`)}
        <th scope="col" class="meter-cell"><span class="visually-hidden">Bar</span></th>
      </tr>
    </thead>
    <tbody>
      ${o.rows.map(
        (r) =>
          html`<tr>
            <th scope="row">${r.label}</th>
            <td class="num" data-label="${o.columns[1] ?? ''}">${r.text}</td>
            ${(r.extra ?? []).map((e, i) => html`<td class="num" data-label="${o.columns[i + 2] ?? ''}">${e}</td>`)}
            <td class="meter-cell">
              <svg
                class="meter"
                viewBox="0 0 ${BAR_WIDTH} 10"
                width="${BAR_WIDTH}"
                height="10"
                aria-hidden="true"
                focusable="false"
              >
                <rect x="0" y="0" width="${BAR_WIDTH}" height="10" class="track" />
                <rect x="0" y="0" width="${scaled(r.value, o.max, BAR_WIDTH)}" height="10" class="bar ${o.kind ?? ''}" />
              </svg>
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}
