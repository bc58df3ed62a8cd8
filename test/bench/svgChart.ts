/**
 * @module A small SVG writer for the README chart: throughput relative to the bare
 * `node:http` baseline, one row per workload, a bar for animal-store and one for json-server.
 */
import type { BenchResults } from './results.js';
import { formatCount } from './results.js';

const WIDTH = 880;
const LABEL_WIDTH = 300;
const PLOT_LEFT = LABEL_WIDTH + 16;
const PLOT_RIGHT = WIDTH - 70;
const TOP = 104;
const BAR = 15;
const BAR_GAP = 3;
const ROW = 2 * BAR + BAR_GAP + 17;
const FONT = `font-family="-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"`;
const COLORS = { ours: '#2563eb', jsonServer: '#f59e0b', baseline: '#111827', grid: '#e5e7eb', text: '#111827', muted: '#6b7280' };

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!);

const formatRatio = (value: number) =>
  value === 0
    ? '0× (no answer within a run)'
    : value < 0.001
      ? '< 0.001×'
      : `${value >= 10 ? value.toFixed(0) : value >= 0.1 ? value.toFixed(2) : value.toFixed(3)}×`;

/** Where the axis ends and how far apart its ticks are: a round number just past the largest bar. */
const axisOf = (largest: number) => {
  const step = largest > 4 ? 1 : largest > 2 ? 0.5 : 0.25;
  return { end: Math.max(1, Math.ceil((largest * 1.05) / step) * step), step };
};

/** Renders the chart; rows without a baseline figure are drawn without bars. */
export const svgChart = (results: BenchResults, subtitle: string): string => {
  const rows = results.workloads;
  const values = rows
    .flatMap((row) => [row.ratioToBaseline.ours, row.ratioToBaseline.jsonServer])
    .filter((v): v is number => v !== undefined && Number.isFinite(v));
  const { end, step } = axisOf(Math.max(1, ...values));
  const x = (value: number) => PLOT_LEFT + (Math.min(value, end) / end) * (PLOT_RIGHT - PLOT_LEFT);
  const plotBottom = TOP + rows.length * ROW;
  const height = plotBottom + 56;
  const parts: string[] = [];

  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Throughput of animal-store and json-server relative to a bare node:http server">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<g ${FONT}>`,
    `<text x="20" y="30" font-size="18" font-weight="600" fill="${COLORS.text}">Throughput relative to a bare node:http server (1.0 = node:http)</text>`,
    `<text x="20" y="50" font-size="11.5" fill="${COLORS.muted}">${escapeXml(subtitle)}</text>`,
  );

  // Legend.
  const legend: [string, string][] = [
    ['animal-store', COLORS.ours],
    ['json-server 0.17', COLORS.jsonServer],
  ];
  let legendX = PLOT_LEFT;
  for (const [name, color] of legend) {
    parts.push(`<rect x="${legendX}" y="66" width="14" height="14" rx="2" fill="${color}"/>`);
    parts.push(`<text x="${legendX + 20}" y="77" font-size="12.5" fill="${COLORS.text}">${name}</text>`);
    legendX += 40 + name.length * 7.2;
  }
  parts.push(
    `<line x1="${legendX}" y1="73" x2="${legendX + 22}" y2="73" stroke="${COLORS.baseline}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
  );
  parts.push(`<text x="${legendX + 28}" y="77" font-size="12.5" fill="${COLORS.text}">bare node:http = 1.0</text>`);

  // Grid and axis.
  for (let tick = 0, i = 0; tick <= end + 1e-9 && i < 100; tick = ++i * step) {
    const tx = x(tick).toFixed(1);
    parts.push(`<line x1="${tx}" y1="${TOP - 6}" x2="${tx}" y2="${plotBottom}" stroke="${COLORS.grid}" stroke-width="1"/>`);
    parts.push(
      `<text x="${tx}" y="${plotBottom + 18}" font-size="11.5" fill="${COLORS.muted}" text-anchor="middle">${Number(tick.toFixed(2))}×</text>`,
    );
  }
  parts.push(
    `<line x1="${PLOT_LEFT}" y1="${plotBottom}" x2="${PLOT_RIGHT}" y2="${plotBottom}" stroke="${COLORS.muted}" stroke-width="1"/>`,
  );
  parts.push(
    `<text x="${(PLOT_LEFT + PLOT_RIGHT) / 2}" y="${plotBottom + 40}" font-size="12" fill="${COLORS.text}" text-anchor="middle">requests per second ÷ bare node:http's (median of the rounds; higher is better)</text>`,
  );

  // One row per workload.
  rows.forEach((row, index) => {
    const top = TOP + index * ROW;
    const [operation = row.label] = row.label.split(' · ');
    parts.push(
      `<text x="${LABEL_WIDTH}" y="${top + BAR + 1}" font-size="12.5" fill="${COLORS.text}" text-anchor="end">${escapeXml(operation)}</text>`,
    );
    parts.push(
      `<text x="${LABEL_WIDTH}" y="${top + 2 * BAR + BAR_GAP + 1}" font-size="11" fill="${COLORS.muted}" text-anchor="end">${formatCount(row.animals)} animals</text>`,
    );
    const bars: [number | undefined, string][] = [
      [row.ratioToBaseline.ours, COLORS.ours],
      [row.ratioToBaseline.jsonServer, COLORS.jsonServer],
    ];
    bars.forEach(([value, color], barIndex) => {
      const y = top + 4 + barIndex * (BAR + BAR_GAP);
      if (value === undefined || !Number.isFinite(value)) {
        parts.push(`<text x="${PLOT_LEFT + 4}" y="${y + BAR - 3}" font-size="11" fill="${COLORS.muted}">n/a</text>`);
        return;
      }
      const barEnd = Math.max(x(value), PLOT_LEFT + 1.5);
      parts.push(`<rect x="${PLOT_LEFT}" y="${y}" width="${(barEnd - PLOT_LEFT).toFixed(1)}" height="${BAR}" rx="2" fill="${color}"/>`);
      parts.push(
        `<text x="${(barEnd + 5).toFixed(1)}" y="${y + BAR - 3}" font-size="11" fill="${COLORS.text}" stroke="#ffffff" stroke-width="3" paint-order="stroke">${formatRatio(value)}</text>`,
      );
    });
  });

  // The baseline itself, over the bars.
  const one = x(1).toFixed(1);
  parts.push(
    `<line x1="${one}" y1="${TOP - 6}" x2="${one}" y2="${plotBottom}" stroke="${COLORS.baseline}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
  );
  parts.push('</g>', '</svg>');
  return `${parts.join('\n')}\n`;
};
