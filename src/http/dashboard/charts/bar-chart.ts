import { html, type SafeHtml } from '../../pages/html.ts';
import { maxOf, scaled } from './chart-math.ts';

/**
 * A vertical bar chart as inline SVG, drawn on the server (docs/overview.md): no script, no image
 * request (the CSP allows neither), colours by presentation attribute and the stylesheet's
 * classes (inline `style` would be refused by the CSP). The SVG is `role="img"` with a label that
 * says what it shows and its largest value; the numbers themselves are in the table under it, which
 * is what a screen reader (or anyone without the picture) reads.
 */
export interface Bar {
  /** Under the bar (may be abbreviated) and in the table's first column. */
  label: string;
  /** Shown in the table's first column (the full label), when it differs. */
  longLabel?: string;
  value: bigint;
  /** The value for people: a formatted amount or count. */
  text: string;
  /** Extra cells of the table (e.g. a count next to an amount). */
  extra?: readonly string[];
  /** Marks the bar (class `mark`), e.g. the median's bucket. */
  marked?: boolean;
}

export interface BarChartOptions {
  id: string;
  /** What the chart shows, for the SVG's label and the table's caption. */
  title: string;
  bars: readonly Bar[];
  /** The table's column headers: label column, value column, extra columns. */
  columns: readonly string[];
  /** Label every n-th bar only (days: every 5th); the table has them all. */
  labelEvery?: number;
}

const WIDTH = 720;
const HEIGHT = 200;
const AXIS = 18;
const TOP = 16;

export function barChart(o: BarChartOptions): SafeHtml {
  const max = maxOf(o.bars.map((b) => b.value));
  const n = Math.max(1, o.bars.length);
  const slot = Math.floor(WIDTH / n);
  const barWidth = Math.max(2, slot - Math.max(1, Math.floor(slot / 5)));
  const plot = HEIGHT - AXIS - TOP;
  const every = o.labelEvery ?? 1;
  const largest = o.bars.find((b) => b.value === max && max > 0n);
  const label = `${o.title}. ${
    largest === undefined ? 'All zero.' : `Largest: ${largest.text} (${largest.longLabel ?? largest.label}).`
  } The numbers are in the table below.`;
  return html`<figure class="chart" id="${o.id}">
    <svg class="chart-svg" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${label}">
      <line x1="0" y1="${HEIGHT - AXIS}" x2="${WIDTH}" y2="${HEIGHT - AXIS}" class="axis" />
      ${o.bars.map((b, i) => {
        const h = scaled(b.value, max, plot);
        const x = i * slot + Math.floor((slot - barWidth) / 2);
        return html`<rect
            x="${x}"
            y="${HEIGHT - AXIS - h}"
            width="${barWidth}"
            height="${h}"
            class="${b.marked === true ? 'bar mark' : 'bar'}"
            ><title>${b.longLabel ?? b.label}: ${b.text}</title></rect
          >${i % every === 0 ? html`<text x="${x + barWidth / 2}" y="${HEIGHT - 4}" class="tick">${b.label}</text>` : ''}`;
      })}
    </svg>
    <figcaption>${o.title}</figcaption>
    <details>
      <summary>Numbers</summary>
      <table class="chart-table">
        <caption class="visually-hidden">
          ${o.title}
        </caption>
        <thead>
          <tr>
            ${o.columns.map((c, i) => html`<th scope="col" class="${i === 0 ? '' : 'num'}">${c}</th>`)}
          </tr>
        </thead>
        <tbody>
          ${o.bars.map(
            (b) =>
              html`<tr>
                <th scope="row">${b.longLabel ?? b.label}</th>
                <td class="num">${b.text}</td>
                ${(b.extra ?? []).map((e) => html`<td class="num">${e}</td>`)}
              </tr>`,
          )}
        </tbody>
      </table>
    </details>
  </figure>`;
}
