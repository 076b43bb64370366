/**
 * Charts as SVG, drawn by Apache ECharts' server-side renderer when the report is written: the file holds the
 * drawings themselves, so it opens offline, runs no script, prints as it shows and scales to a phone's width.
 * Each drawn data point carries ECharts' `ecmeta_ssr_type="chart"` mark; `points` says how many there should be.
 * (No markLine: ECharts marks it like a data point, so reference lines are series of their own.)
 */
import { createRequire } from 'node:module';
import type * as Echarts from 'echarts';

// ECharts' one-file CommonJS build of its common charts (line, bar, legend, grid, the SVG renderer), minified,
// loaded on the first chart: its ES-module build is some 600 files, and the full build is five times the bytes to
// read and compile at every run that writes a report.
let loaded: typeof Echarts | undefined;
const echartsLib = (): typeof Echarts => (loaded ??= createRequire(import.meta.url)('echarts/dist/echarts.common.min') as typeof Echarts);

export interface Chart {
  svg: string;
  /** Data points drawn (non-null values): the browser test counts the marks against it. */
  points: number;
}

/** A line or bar series; `dashed` for a reference line such as the budget (its points are drawn and counted too). */
export interface Series { name: string; values: (number | null)[]; dashed?: boolean }

const WIDTH = 640;
const FONT = { fontFamily: 'system-ui, -apple-system, Segoe UI, Roboto, sans-serif', fontSize: 12 };
export const PALETTE = ['#2563eb', '#dc2626', '#16a34a', '#d97706', '#7c3aed', '#0891b2', '#db2777', '#65a30d', '#475569', '#ea580c'];

function render(option: Echarts.EChartsOption, height: number, width = WIDTH): string {
  const chart = echartsLib().init(null, null, { renderer: 'svg', ssr: true, width, height });
  try {
    chart.setOption({ animation: false, color: PALETTE, textStyle: FONT, ...option });
    return chart.renderToSVGString();
  } finally {
    chart.dispose();
  }
}

const counted = (series: readonly Series[]) => series.reduce((n, s) => n + s.values.filter((v) => v !== null && Number.isFinite(v)).length, 0);
const legend = (series: readonly Series[]) => (series.length > 1 ? { bottom: 0, type: 'plain' as const, itemWidth: 14, textStyle: FONT } : { show: false });
/** Room under the plot for the legend: about four entries a line at full width, two on a small multiple. */
const gridFor = (series: readonly Series[], left = 48, width = WIDTH) => ({ left, right: 16, top: 28, bottom: series.length > 1 ? 28 + 20 * Math.ceil(series.length / (width < 500 ? 2 : 4)) : 32, containLabel: false });

/**
 * Lines over categories (days, months, minutes). `invert`: 1 at the top, for positions. `width` smaller for small
 * multiples. `scale`: the axis fits the values instead of starting at 0, for figures that move a few percent.
 */
export function lineChart(o: { categories: readonly string[]; series: readonly Series[]; yName?: string; invert?: boolean; min?: number; max?: number; height?: number; width?: number; scale?: boolean }): Chart {
  const height = o.height ?? 240 + (o.series.length > 1 ? 20 * Math.ceil(o.series.length / 4) : 0);
  const svg = render({
    grid: gridFor(o.series, 48, o.width),
    legend: legend(o.series),
    xAxis: { type: 'category', data: [...o.categories], boundaryGap: o.categories.length === 1, axisLabel: { hideOverlap: true } },
    yAxis: { type: 'value', name: o.yName, inverse: o.invert, min: o.min ?? (o.invert ? 1 : undefined), max: o.max, minInterval: o.invert ? 1 : undefined, scale: o.scale, nameTextStyle: FONT },
    series: o.series.map((s, i) => ({
      type: 'line', name: s.name, data: [...s.values], connectNulls: false, showSymbol: true, showAllSymbol: true, symbolSize: 6,
      ...(s.dashed ? { lineStyle: { type: 'dashed' } } : {}),
    })),
  }, height, o.width);
  return { svg, points: counted(o.series) };
}

/** Bars over categories; several series side by side, or stacked. `horizontal` for long labels. */
export function barChart(o: { categories: readonly string[]; series: readonly Series[]; yName?: string; stack?: boolean; horizontal?: boolean; height?: number; markLine?: { value: number; label: string }; colorBySign?: boolean }): Chart {
  const rows = o.categories.length;
  const height = o.height ?? (o.horizontal ? 60 + rows * 26 + (o.series.length > 1 ? 24 : 0) : 260);
  const valueAxis = { type: 'value' as const, name: o.yName, nameTextStyle: FONT };
  const categoryAxis = { type: 'category' as const, data: [...o.categories], axisLabel: { hideOverlap: !o.horizontal, width: o.horizontal ? 200 : 90, overflow: 'truncate' as const, interval: 0 } };
  const svg = render({
    grid: { ...gridFor(o.series, o.horizontal ? 232 : 56) },
    legend: legend(o.series),
    xAxis: o.horizontal ? valueAxis : categoryAxis,
    yAxis: o.horizontal ? { ...categoryAxis, inverse: true } : valueAxis,
    series: o.series.map((s) => ({
      type: 'bar', name: s.name, stack: o.stack ? 'all' : undefined, barMaxWidth: 28,
      data: s.values.map((v) => (o.colorBySign && v !== null ? { value: v, itemStyle: { color: v < 0 ? '#dc2626' : '#16a34a' } } : v)),
    })),
  }, height);
  return { svg, points: counted(o.series) };
}
