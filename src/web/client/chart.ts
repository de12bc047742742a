/**
 * Small inline-SVG charts for the reports page: stacked bars over periods (with an optional
 * negative series below zero and an optional line on a right-hand axis), horizontal bars, and a
 * heat grid. No library: each chart is an <svg role="img"> with a <title> summing it up, drawn at
 * the width of its container in CSS pixels so text stays 12 px on a phone. Colours come with
 * a legend that names them, so colour is never the only cue.
 */

const NS = 'http://www.w3.org/2000/svg';
const FONT = 12;

type Attrs = Record<string, string | number>;

function svgEl<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const el = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
  if (text !== undefined) el.textContent = text;
  return el;
}

function frame(width: number, height: number, summary: string): SVGSVGElement {
  const svg = svgEl('svg', {
    viewBox: `0 0 ${String(width)} ${String(height)}`,
    width,
    height,
    role: 'img',
    'aria-label': summary,
    class: 'chart',
    'font-size': FONT,
  });
  svg.append(svgEl('title', {}, summary));
  return svg;
}

/** Round tick values (1, 2 or 5 × 10ⁿ apart) from 0 (or below) up past `max`. */
export function ticks(min: number, max: number, count = 5): number[] {
  const span = max - min || 1;
  const raw = span / count;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw) ?? power * 10;
  const out: number[] = [];
  for (let v = Math.floor(min / step) * step; v < max + step; v += step) {
    out.push(Math.round(v * 1e6) / 1e6);
    if (v >= max) break;
  }
  return out;
}

/** 1234567 → "1.2M", 12000 → "12k": short tick labels. */
export function compact(n: number): string {
  const abs = Math.abs(n);
  if (abs >= 1e6) return `${String(Math.round(n / 1e5) / 10)}M`;
  if (abs >= 1e3) return `${String(Math.round(n / 1e2) / 10)}k`;
  return String(Math.round(n * 10) / 10);
}

export interface Series {
  label: string;
  colour: string;
  values: number[];
}

export interface BarChart {
  summary: string;
  /** The unit on the left axis (TZS, GB). */
  unit: string;
  labels: string[];
  /** Stacked upwards from zero. */
  stacks: Series[];
  /** Drawn downwards from zero (values ≤ 0). */
  below?: Series;
  /** A line over the bars on its own right-hand axis. */
  line?: Series & { unit: string };
}

const MARGIN = { top: 24, right: 12, bottom: 28, left: 52 };

/** Which labels to show so none overlap: every `step`th, by the room per label. */
export const labelStep = (count: number, room: number, labelWidth: number): number =>
  Math.max(1, Math.ceil((count * labelWidth) / Math.max(room, 1)));

export function barChart(chart: BarChart, width: number, height = 260): SVGSVGElement {
  const svg = frame(width, height, chart.summary);
  const right = chart.line ? 44 : MARGIN.right;
  const plotW = width - MARGIN.left - right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const n = chart.labels.length;
  const tops = chart.labels.map((_, i) =>
    chart.stacks.reduce((s, series) => s + Math.max(0, series.values[i] ?? 0), 0),
  );
  const bottoms = chart.labels.map((_, i) => Math.min(0, chart.below?.values[i] ?? 0));
  const low = Math.min(0, ...bottoms);
  const high = Math.max(1, ...tops);
  // The axis reaches past the deepest refund (a step further when that lands on a tick), so its
  // bar ends inside the plot, above a labelled tick, never on the plot's edge.
  const yTicks = ticks(low < 0 ? low - (high - low) / 50 : 0, high);
  const lo = yTicks[0] ?? 0;
  const hi = yTicks.at(-1) ?? 1;
  const y = (v: number): number => MARGIN.top + plotH - ((v - lo) / (hi - lo || 1)) * plotH;
  // The grid and the left axis with its unit.
  for (const v of yTicks) {
    svg.append(
      svgEl('line', {
        x1: MARGIN.left,
        x2: MARGIN.left + plotW,
        y1: y(v),
        y2: y(v),
        class: v === 0 ? 'axis' : 'grid',
      }),
      svgEl('text', { x: MARGIN.left - 6, y: y(v) + 4, 'text-anchor': 'end' }, compact(v)),
    );
  }
  svg.append(svgEl('text', { x: 4, y: 14, class: 'unit' }, chart.unit));
  const band = plotW / Math.max(n, 1);
  const barW = Math.max(1, band * 0.7);
  const bars = svgEl('g', { class: 'bars' });
  for (let i = 0; i < n; i++) {
    const x = MARGIN.left + i * band + (band - barW) / 2;
    let base = 0;
    for (const series of chart.stacks) {
      const v = Math.max(0, series.values[i] ?? 0);
      if (v === 0) continue;
      const rect = svgEl('rect', {
        x,
        y: y(base + v),
        width: barW,
        height: y(base) - y(base + v),
        fill: series.colour,
      });
      rect.append(
        svgEl('title', {}, `${chart.labels[i] ?? ''} · ${series.label}: ${compact(v)} ${chart.unit}`),
      );
      bars.append(rect);
      base += v;
    }
    const below = chart.below?.values[i] ?? 0;
    if (chart.below && below < 0) {
      const rect = svgEl('rect', {
        x,
        y: y(0),
        width: barW,
        height: y(below) - y(0),
        fill: chart.below.colour,
      });
      rect.append(
        svgEl(
          'title',
          {},
          `${chart.labels[i] ?? ''} · ${chart.below.label}: ${compact(below)} ${chart.unit}`,
        ),
      );
      bars.append(rect);
    }
  }
  svg.append(bars);
  // Period labels along the bottom, thinned so they never overlap.
  const step = labelStep(n, plotW, 46);
  for (let i = 0; i < n; i += step)
    svg.append(
      svgEl(
        'text',
        { x: MARGIN.left + i * band + band / 2, y: height - 8, 'text-anchor': 'middle', class: 'period' },
        shortPeriod(chart.labels[i] ?? ''),
      ),
    );
  if (chart.line) drawLine(svg, chart.line, { width, plotW, plotH, band, right });
  return svg;
}

function drawLine(
  svg: SVGSVGElement,
  line: Series & { unit: string },
  box: { width: number; plotW: number; plotH: number; band: number; right: number },
): void {
  const lineTicks = ticks(0, Math.max(1, ...line.values), 4);
  const hi = lineTicks.at(-1) ?? 1;
  const y = (v: number): number => MARGIN.top + box.plotH - (v / hi) * box.plotH;
  for (const v of lineTicks)
    svg.append(svgEl('text', { x: box.width - box.right + 6, y: y(v) + 4, class: 'line-tick' }, compact(v)));
  svg.append(svgEl('text', { x: box.width - 4, y: 14, 'text-anchor': 'end', class: 'unit' }, line.unit));
  const points = line.values.map(
    (v, i) => `${String(MARGIN.left + i * box.band + box.band / 2)},${String(y(v))}`,
  );
  svg.append(
    svgEl('polyline', {
      points: points.join(' '),
      fill: 'none',
      stroke: line.colour,
      'stroke-width': 2,
      class: 'line',
    }),
  );
}

/** "2026-01-05" → "5 Jan"; "2026-01-01" for a month stays "Jan 2026" when `month`. */
export function shortPeriod(period: string, month = false): string {
  const date = new Date(`${period}T00:00:00Z`);
  if (Number.isNaN(date.getTime())) return period;
  return new Intl.DateTimeFormat(
    'en-GB',
    month
      ? { month: 'short', year: 'numeric', timeZone: 'UTC' }
      : { day: 'numeric', month: 'short', timeZone: 'UTC' },
  ).format(date);
}

export interface Bar {
  label: string;
  value: number;
  colour: string;
}

/**
 * One horizontal bar per item, its value written beside it. A negative value (a guest's refunds
 * in the range beyond their purchases) runs left of a zero line, inside the plot like the rest.
 */
export function hBars(summary: string, unit: string, items: readonly Bar[], width: number): SVGSVGElement {
  const rowH = 28;
  const labelW = Math.min(140, width * 0.35);
  const height = items.length * rowH + 24;
  const svg = frame(width, height, summary);
  const max = Math.max(1, ...items.map((i) => i.value));
  const min = Math.min(0, ...items.map((i) => i.value));
  const room = width - labelW - 70;
  const zero = labelW + (-min / (max - min)) * room;
  items.forEach((item, i) => {
    const top = 20 + i * rowH;
    const w = (Math.abs(item.value) / (max - min)) * room;
    const x = item.value < 0 ? zero - w : zero;
    const rect = svgEl('rect', { x, y: top + 2, width: Math.max(w, 1), height: rowH - 8, fill: item.colour });
    svg.append(
      svgEl('text', { x: labelW - 6, y: top + 14, 'text-anchor': 'end' }, item.label),
      rect,
      svgEl('text', { x: (item.value < 0 ? zero : zero + w) + 6, y: top + 14 }, compact(item.value)),
    );
  });
  if (min < 0) svg.append(svgEl('line', { x1: zero, x2: zero, y1: 18, y2: height - 4, class: 'axis' }));
  svg.append(svgEl('text', { x: labelW, y: 12, class: 'unit' }, unit));
  return svg;
}

/** Light to dark steps of one hue: more is darker. */
export const HEAT = ['#f1f5f9', '#c6dbef', '#9ecae1', '#4292c6', '#2171b5', '#08306b'];

/** A grid of `rows` × `columns` cells shaded by value, with row and column labels and a scale. */
export function heatGrid(
  summary: string,
  rowLabels: readonly string[],
  columnLabels: readonly string[],
  values: readonly (readonly number[])[],
  scaleLabel: string,
  width: number,
): SVGSVGElement {
  const left = 40;
  const top = 20;
  const cell = Math.max(8, Math.min(32, (width - left - 8) / columnLabels.length));
  const gridH = rowLabels.length * cell;
  const height = top + gridH + 24 + 40;
  const svg = frame(width, height, summary);
  const max = Math.max(1, ...values.flat());
  const shade = (v: number): string =>
    v === 0 ? (HEAT[0] ?? '') : (HEAT[1 + Math.min(4, Math.floor(((v - 1) / max) * 5))] ?? '');
  const grid = svgEl('g', { class: 'heat' });
  rowLabels.forEach((label, r) => {
    svg.append(svgEl('text', { x: left - 6, y: top + r * cell + cell / 2 + 4, 'text-anchor': 'end' }, label));
    columnLabels.forEach((column, c) => {
      const v = values[r]?.[c] ?? 0;
      const rect = svgEl('rect', {
        x: left + c * cell,
        y: top + r * cell,
        width: cell - 1,
        height: cell - 1,
        fill: shade(v),
      });
      rect.append(svgEl('title', {}, `${label} ${column}: ${String(v)}`));
      grid.append(rect);
    });
  });
  svg.append(grid);
  const step = labelStep(columnLabels.length, columnLabels.length * cell, 22);
  for (let c = 0; c < columnLabels.length; c += step)
    svg.append(
      svgEl(
        'text',
        { x: left + c * cell + cell / 2, y: top - 6, 'text-anchor': 'middle' },
        columnLabels[c] ?? '',
      ),
    );
  // The scale: each shade with the values it stands for.
  const scaleTop = top + gridH + 16;
  svg.append(svgEl('text', { x: left, y: scaleTop + 8 }, scaleLabel));
  const swatch = Math.min(48, (width - left - 8) / HEAT.length);
  HEAT.forEach((colour, i) => {
    const from = i === 0 ? 0 : Math.ceil(((i - 1) * max) / 5) + 1;
    const x = left + i * swatch;
    svg.append(
      svgEl('rect', { x, y: scaleTop + 14, width: swatch - 2, height: 12, fill: colour, class: 'swatch' }),
      svgEl('text', { x, y: scaleTop + 38 }, i === 0 ? '0' : `${compact(from)}+`),
    );
  });
  return svg;
}

/** A legend naming each colour. */
export function legend(items: readonly { label: string; colour: string }[]): HTMLUListElement {
  const ul = document.createElement('ul');
  ul.className = 'legend';
  for (const item of items) {
    const li = document.createElement('li');
    const svg = svgEl('svg', { width: 12, height: 12, 'aria-hidden': 'true' });
    svg.append(svgEl('rect', { width: 12, height: 12, fill: item.colour }));
    li.append(svg, document.createTextNode(` ${item.label}`));
    ul.append(li);
  }
  return ul;
}
