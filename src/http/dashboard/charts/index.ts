/** Server-rendered SVG charts of the dashboard (docs/overview.md): pure functions of numbers. */
export { type Bar, barChart, type BarChartOptions } from './bar-chart.ts';
export { basisPoints, countText, maxOf, percentText, scaled } from './chart-math.ts';
export { meterChart, type MeterChartOptions, type MeterRow } from './meter-chart.ts';
