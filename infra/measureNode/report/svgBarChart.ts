import { esc } from './format.ts';

/** One bar series (e.g. "before p50") with its fill colour. */
export interface Series {
  name: string;
  color: string;
}

/** One group of bars (e.g. one method); `values[i]` belongs to `series[i]`, null draws no bar. */
export interface BarGroup {
  label: string;
  values: (number | null)[];
}

/** Input of a horizontal grouped bar chart. */
export interface BarChartInput {
  id: string;
  title: string;
  unit: string;
  series: Series[];
  groups: BarGroup[];
  format: (v: number) => string;
}

const LABEL_W = 230;
const PLOT_W = 420;
const VALUE_W = 90;
const BAR_H = 12;
const GROUP_GAP = 10;
const TOP = 30;

/**
 * A self-contained horizontal grouped bar chart as inline SVG (no script, no external font or stylesheet), so the
 * HTML report renders offline. Bars are scaled to the largest value; each carries its value as text and a <title>.
 */
export function barChart(input: BarChartInput): string {
  const max = Math.max(0, ...input.groups.flatMap((g) => g.values.filter((v): v is number => v !== null)));
  const groupH = input.series.length * BAR_H + GROUP_GAP;
  const legendY = TOP + input.groups.length * groupH + 8;
  const height = legendY + 22;
  const width = LABEL_W + PLOT_W + VALUE_W;
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" id="${esc(input.id)}" role="img" aria-label="${esc(input.title)}" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}">`,
    `<text x="0" y="16" class="chart-title">${esc(input.title)} (${esc(input.unit)})</text>`,
  ];
  input.groups.forEach((g, gi) => {
    const y0 = TOP + gi * groupH;
    parts.push(
      `<text x="${LABEL_W - 8}" y="${y0 + (input.series.length * BAR_H) / 2 + 4}" text-anchor="end" class="label">${esc(g.label)}</text>`,
    );
    g.values.forEach((v, si) => {
      if (v === null) return;
      const w = max > 0 ? Math.max(1, (v / max) * PLOT_W) : 1;
      const y = y0 + si * BAR_H;
      const s = input.series[si];
      parts.push(
        `<rect class="bar" x="${LABEL_W}" y="${y}" width="${w.toFixed(1)}" height="${BAR_H - 2}" fill="${s.color}"><title>${esc(`${g.label} ${s.name}: ${input.format(v)} ${input.unit}`)}</title></rect>`,
        `<text x="${(LABEL_W + w + 4).toFixed(1)}" y="${y + BAR_H - 3}" class="value">${esc(input.format(v))}</text>`,
      );
    });
  });
  parts.push(`<line x1="${LABEL_W}" y1="${TOP - 4}" x2="${LABEL_W}" y2="${legendY - 6}" stroke="#888"/>`);
  input.series.forEach((s, i) => {
    const x = LABEL_W + i * 110;
    parts.push(
      `<rect x="${x}" y="${legendY}" width="10" height="10" fill="${s.color}"/>`,
      `<text x="${x + 14}" y="${legendY + 9}" class="legend">${esc(s.name)}</text>`,
    );
  });
  parts.push('</svg>');
  return parts.join('');
}
