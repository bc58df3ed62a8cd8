/**
 * @module A small SVG writer for the performance chart (docs/performance.md): animal-store's throughput relative to
 * bare `node:http` and to the `@whatwg-node/server` floor, two bars per workload, with the
 * floor's own place against bare, the target where issue 10 sets one, and json-server's
 * ratio as a figure. PostgreSQL's rows, which no reference has, are left to the table.
 */
import type { BenchResults, WorkloadResult } from './results.js';
import { formatCount } from './results.js';

const WIDTH = 1000;
const LABEL_WIDTH = 300;
const PLOT_LEFT = LABEL_WIDTH + 16;
const PLOT_RIGHT = WIDTH - 150;
const TOP = 124;
const BAR = 15;
const BAR_GAP = 3;
const ROW = 2 * BAR + BAR_GAP + 17;
/** The charts' typeface, as an SVG attribute. */
export const FONT = `font-family="-apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif"`;
const COLORS = {
  toBare: '#2563eb',
  toFloor: '#16a34a',
  floor: '#111827',
  target: '#dc2626',
  jsonServer: '#b45309',
  grid: '#e5e7eb',
  text: '#111827',
  muted: '#6b7280',
};

/** Issues 10 and 21's share of the floor, for the rows that have one (10k animals). */
const FLOOR_TARGET: Partial<Record<WorkloadResult['operation'], number>> = {
  list20: 0.9,
  walk20: 0.9,
  list100sold: 0.9,
  walk100sold: 0.9,
  getById: 0.9,
  mixed: 0.8,
  createMemory: 0.85,
};

/** Text made safe for an SVG's text and attributes. */
export const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (char) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;', "'": '&apos;' })[char]!);

const ratioText = (value: number) =>
  value === 0
    ? '0× (no answer within a run)'
    : value < 0.001
      ? '< 0.001×'
      : `${value >= 10 ? value.toFixed(0) : value >= 0.1 ? value.toFixed(2) : value.toFixed(3)}×`;

/** A ratio as the chart writes it, escaped for SVG text ("< 0.001×" holds a "<"). */
const formatRatio = (value: number) => escapeXml(ratioText(value));

const finite = (value: number | undefined): value is number => value !== undefined && Number.isFinite(value);

/** Where the axis ends and how far apart its ticks are: a round number just past the largest bar. */
const axisOf = (largest: number) => {
  const step = largest > 4 ? 1 : largest > 2 ? 0.5 : 0.25;
  return { end: Math.max(1, Math.ceil((largest * 1.05) / step) * step), step };
};

/** Renders the chart; rows without a reference's figure are drawn without that bar. */
export const svgChart = (results: BenchResults, subtitle: string): string => {
  // Ratios need references; PostgreSQL's rows have none (ours alone) and stay in the table.
  const rows = results.workloads.filter((row) => row.storage !== 'postgres');
  const values = rows.flatMap((row) => [row.ratioToBaseline.ours, row.ratioToFloor.ours, row.ratioToBaseline.floor]).filter(finite);
  const { end, step } = axisOf(Math.max(1, ...values));
  const x = (value: number) => PLOT_LEFT + (Math.min(value, end) / end) * (PLOT_RIGHT - PLOT_LEFT);
  const plotBottom = TOP + rows.length * ROW;
  const height = plotBottom + 56;
  const parts: string[] = [];

  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" viewBox="0 0 ${WIDTH} ${height}" role="img" aria-label="Throughput of animal-store relative to a bare node:http server and to the @whatwg-node/server floor">`,
    `<rect width="100%" height="100%" fill="#ffffff"/>`,
    `<g ${FONT}>`,
    `<text x="20" y="30" font-size="18" font-weight="600" fill="${COLORS.text}">animal-store's throughput relative to bare node:http and to the @whatwg-node/server floor</text>`,
    `<text x="20" y="50" font-size="11.5" fill="${COLORS.muted}">${escapeXml(subtitle)}</text>`,
  );

  // Legend, two lines.
  const legendItem = (at: number, y: number, swatch: string, name: string) => {
    parts.push(swatch);
    parts.push(`<text x="${at + 20}" y="${y + 11}" font-size="12.5" fill="${COLORS.text}">${escapeXml(name)}</text>`);
    return at + 40 + name.length * 6.6;
  };
  let legendX = PLOT_LEFT;
  legendX = legendItem(
    legendX,
    66,
    `<rect x="${legendX}" y="66" width="14" height="14" rx="2" fill="${COLORS.toBare}"/>`,
    'animal-store ÷ bare node:http',
  );
  legendX = legendItem(
    legendX,
    66,
    `<rect x="${legendX}" y="66" width="14" height="14" rx="2" fill="${COLORS.toFloor}"/>`,
    'animal-store ÷ @whatwg-node/server floor',
  );
  legendX = PLOT_LEFT;
  legendX = legendItem(
    legendX,
    88,
    `<line x1="${legendX + 7}" y1="86" x2="${legendX + 7}" y2="104" stroke="${COLORS.floor}" stroke-width="2.5"/>`,
    'the floor ÷ bare node:http',
  );
  legendItem(
    legendX,
    88,
    `<line x1="${legendX + 7}" y1="86" x2="${legendX + 7}" y2="104" stroke="${COLORS.target}" stroke-width="2.5"/>`,
    "issue 10's target (a share of the floor)",
  );

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
    `<text x="${(PLOT_LEFT + PLOT_RIGHT) / 2}" y="${plotBottom + 40}" font-size="12" fill="${COLORS.text}" text-anchor="middle">requests per second ÷ the reference's (median of the rounds; higher is better; 1.0 = as fast as the reference)</text>`,
  );
  parts.push(`<text x="${PLOT_RIGHT + 12}" y="${TOP - 10}" font-size="11" fill="${COLORS.jsonServer}">json-server 0.17 ÷ bare</text>`);

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
      [row.ratioToBaseline.ours, COLORS.toBare],
      [row.ratioToFloor.ours, COLORS.toFloor],
    ];
    // Bars first, then the marks across them, then the figures over everything.
    const labels: string[] = [];
    bars.forEach(([value, color], barIndex) => {
      const y = top + 4 + barIndex * (BAR + BAR_GAP);
      if (!finite(value)) {
        labels.push(`<text x="${PLOT_LEFT + 4}" y="${y + BAR - 3}" font-size="11" fill="${COLORS.muted}">n/a</text>`);
        return;
      }
      const barEnd = Math.max(x(value), PLOT_LEFT + 1.5);
      parts.push(`<rect x="${PLOT_LEFT}" y="${y}" width="${(barEnd - PLOT_LEFT).toFixed(1)}" height="${BAR}" rx="2" fill="${color}"/>`);
      labels.push(
        `<text x="${(barEnd + 5).toFixed(1)}" y="${y + BAR - 3}" font-size="11" fill="${COLORS.text}" stroke="#ffffff" stroke-width="3" paint-order="stroke">${formatRatio(value)}</text>`,
      );
    });
    // Where the floor itself stands against bare, across the bare bar.
    const floorToBare = row.ratioToBaseline.floor;
    if (finite(floorToBare)) {
      const fx = x(floorToBare).toFixed(1);
      parts.push(`<line x1="${fx}" y1="${top + 1}" x2="${fx}" y2="${top + 4 + BAR + 3}" stroke="${COLORS.floor}" stroke-width="2.5"/>`);
    }
    // Issue 10's target, across the floor bar, on the rows it is set for.
    const target = FLOOR_TARGET[row.operation];
    if (target !== undefined && row.scale === 'medium') {
      const tx = x(target).toFixed(1);
      const y = top + 4 + BAR + BAR_GAP;
      parts.push(`<line x1="${tx}" y1="${y - 2}" x2="${tx}" y2="${y + BAR + 2}" stroke="${COLORS.target}" stroke-width="2.5"/>`);
    }
    parts.push(...labels);
    const jsonServer = row.ratioToBaseline.jsonServer;
    parts.push(
      `<text x="${PLOT_RIGHT + 12}" y="${top + BAR + 6}" font-size="11" fill="${COLORS.jsonServer}">${!finite(jsonServer) ? 'n/a' : jsonServer === 0 ? 'no answer' : formatRatio(jsonServer)}</text>`,
    );
  });

  // 1.0: as fast as the reference.
  const one = x(1).toFixed(1);
  parts.push(
    `<line x1="${one}" y1="${TOP - 6}" x2="${one}" y2="${plotBottom}" stroke="${COLORS.muted}" stroke-width="1.5" stroke-dasharray="4 3"/>`,
  );
  parts.push('</g>', '</svg>');
  return `${parts.join('\n')}\n`;
};
