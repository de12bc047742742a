import { t } from './forms.js';
import { barChart, legend, type Series } from './chart.js';

/**
 * Net revenue per period stacked by channel, refunds below zero, in TZS: the revenue report's
 * chart, drawn on the reports page and (the last 7 days) on the overview.
 */

type Cell = string | number | null;

export const CHANNELS: readonly [string, string][] = [
  ['mobile_money', '#0b6e4f'],
  ['voucher', '#1f6feb'],
  ['cash', '#b35900'],
  ['complimentary', '#8250df'],
];
export const REFUND = '#b42318';

export const num = (c: Cell | undefined): number => (typeof c === 'number' ? c : 0);

/** A figure with the chart and a legend naming every colour, from the revenue report's rows. */
export function revenueFigure(
  rows: readonly Record<string, Cell>[],
  summary: string,
  width: number,
): HTMLElement {
  const stacks: Series[] = CHANNELS.map(([channel, colour]) => ({
    label: t(`reports.channel.${channel}`),
    colour,
    values: rows.map((row) => num(row[`${channel}_tzs`])),
  }));
  const below: Series = {
    label: t('reports.refunds'),
    colour: REFUND,
    values: rows.map((row) => num(row.refunds_tzs)),
  };
  const labels = rows.map((row) => String(row.period));
  return figure(barChart({ summary, unit: 'TZS', labels, stacks, below }, width), [
    legend([...stacks, below]),
  ]);
}

export const figure = (svg: SVGSVGElement, extra: Node[] = []): HTMLElement => {
  const fig = document.createElement('figure');
  fig.className = 'chart-box';
  fig.append(svg, ...extra);
  return fig;
};
