/**
 * @module A small SVG writer for time series, such as the soak's: panels stacked over one
 * time axis in minutes, one line per series, with a shaded warm-up. Same look as the bench
 * chart (svgChart.ts), whose typeface and escaping it shares.
 */
import { escapeXml, FONT } from './svgChart.js';

/** One line of a panel: its points as [minutes, value]. */
export interface Series {
  name: string;
  color: string;
  points: ReadonlyArray<readonly [number, number]>;
}

/** One panel: a y axis (from 0) and its lines. */
export interface Panel {
  /** The y axis's label, with its unit: "RSS (MiB)". */
  label: string;
  series: readonly Series[];
}

/** What the chart shows. */
export interface LineChart {
  title: string;
  /** Lines under the title: what was measured, and what it shows. */
  subtitle: readonly string[];
  /** The minutes the time axis runs to. */
  minutes: number;
  /** Minutes from the start that are warm-up, shaded; 0 for none. */
  warmupMinutes: number;
  panels: readonly Panel[];
}

const WIDTH = 1000;
const LEFT = 80;
const RIGHT = WIDTH - 30;
const TOP = 92;
/** Room under the title for the subtitle's lines beyond the second. */
const LINE_HEIGHT = 16;
const PANEL_HEIGHT = 180;
const PANEL_GAP = 46;
const MUTED = '#6b7280';
const GRID = '#e5e7eb';
const TEXT = '#111827';

/** A round step that gives about five ticks up to `largest`. */
const stepOf = (largest: number) => {
  const rough = Math.max(largest, 1e-9) / 5;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  return ([1, 2, 5, 10].map((factor) => factor * magnitude).find((step) => step >= rough) ?? 10 * magnitude) as number;
};

const tickText = (value: number) => String(Number(value.toPrecision(6)));

/** Renders the chart. */
export const svgLineChart = ({ title, subtitle, minutes, warmupMinutes, panels }: LineChart): string => {
  const top0 = TOP + Math.max(0, subtitle.length - 2) * LINE_HEIGHT;
  const height = top0 + panels.length * (PANEL_HEIGHT + PANEL_GAP) + 10;
  const x = (minute: number) => LEFT + (Math.min(Math.max(minute, 0), minutes) / Math.max(minutes, 1e-9)) * (RIGHT - LEFT);
  const parts: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<g ${FONT}>`,
    `<text x="20" y="30" font-size="18" font-weight="600" fill="${TEXT}">${escapeXml(title)}</text>`,
    ...subtitle.map(
      (line, index) => `<text x="20" y="${50 + index * LINE_HEIGHT}" font-size="11.5" fill="${MUTED}">${escapeXml(line)}</text>`,
    ),
  ];
  panels.forEach((panel, index) => {
    const top = top0 + index * (PANEL_HEIGHT + PANEL_GAP);
    const bottom = top + PANEL_HEIGHT;
    const values = panel.series.flatMap((series) => series.points.map(([, value]) => value)).filter(Number.isFinite);
    const step = stepOf(Math.max(0, ...values) * 1.1);
    const end = Math.max(step, Math.ceil((Math.max(0, ...values) * 1.05) / step) * step);
    const y = (value: number) => bottom - (Math.min(Math.max(value, 0), end) / end) * PANEL_HEIGHT;
    if (warmupMinutes > 0) {
      parts.push(
        `<rect x="${LEFT}" y="${top}" width="${(x(warmupMinutes) - LEFT).toFixed(1)}" height="${PANEL_HEIGHT}" fill="#f3f4f6"/>`,
        `<text x="${LEFT + 6}" y="${top + 14}" font-size="11" fill="${MUTED}">warm-up</text>`,
      );
    }
    for (let i = 0; i * step <= end + 1e-9 && i < 50; i++) {
      const ty = y(i * step).toFixed(1);
      parts.push(
        `<line x1="${LEFT}" y1="${ty}" x2="${RIGHT}" y2="${ty}" stroke="${GRID}" stroke-width="1"/>`,
        `<text x="${LEFT - 8}" y="${Number(ty) + 4}" font-size="11" fill="${MUTED}" text-anchor="end">${tickText(i * step)}</text>`,
      );
    }
    const minuteStep = stepOf(minutes);
    for (let i = 0; i * minuteStep <= minutes + 1e-9 && i < 50; i++) {
      const tx = x(i * minuteStep).toFixed(1);
      parts.push(
        `<line x1="${tx}" y1="${bottom}" x2="${tx}" y2="${bottom + 5}" stroke="${MUTED}" stroke-width="1"/>`,
        `<text x="${tx}" y="${bottom + 18}" font-size="11" fill="${MUTED}" text-anchor="middle">${tickText(i * minuteStep)}</text>`,
      );
    }
    parts.push(
      `<line x1="${LEFT}" y1="${bottom}" x2="${RIGHT}" y2="${bottom}" stroke="${MUTED}" stroke-width="1"/>`,
      `<text x="${LEFT}" y="${top - 8}" font-size="12.5" font-weight="600" fill="${TEXT}">${escapeXml(panel.label)}</text>`,
    );
    let legendX = RIGHT;
    for (const series of [...panel.series].reverse()) {
      const width = 26 + series.name.length * 6.4;
      legendX -= width;
      parts.push(
        `<line x1="${legendX.toFixed(1)}" y1="${top - 12}" x2="${(legendX + 16).toFixed(1)}" y2="${top - 12}" stroke="${series.color}" stroke-width="2.5"/>`,
        `<text x="${(legendX + 20).toFixed(1)}" y="${top - 8}" font-size="11.5" fill="${TEXT}">${escapeXml(series.name)}</text>`,
      );
    }
    for (const series of panel.series) {
      const points = series.points.filter(([, value]) => Number.isFinite(value));
      if (points.length === 0) continue;
      const path = points.map(([minute, value]) => `${x(minute).toFixed(1)},${y(value).toFixed(1)}`).join(' ');
      parts.push(`<polyline points="${path}" fill="none" stroke="${series.color}" stroke-width="2" stroke-linejoin="round"/>`);
    }
  });
  parts.push(
    `<text x="${(LEFT + RIGHT) / 2}" y="${height - 8}" font-size="12" fill="${TEXT}" text-anchor="middle">minutes since the start</text>`,
    '</g>',
    '</svg>',
  );
  return `${parts.join('\n')}\n`;
};
