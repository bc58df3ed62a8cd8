/** @module Whether a soak's memory stayed flat after its warm-up, in figures and in one sentence. */
import type { WindowFigures } from './soakTraffic.js';

/** One sample of a soak: when, the server's RSS, and what the traffic did in the window before. */
export interface SoakSample extends WindowFigures {
  /** Minutes since the traffic started. */
  minute: number;
  rssMiB: number;
  /** What the server process had written to storage since the traffic started (`write_bytes` of /proc/PID/io), in MiB, on Linux. */
  writtenMiB?: number;
  /** The server's V8 heap from its `/metrics` (prom-client's default metrics), in MiB, when it answered. */
  heap?: HeapFigures;
}

/** What the server's V8 heap holds: in use, reserved, and the young generation's share of what is reserved. */
export interface HeapFigures {
  usedMiB: number;
  totalMiB: number;
  newSpaceMiB: number;
  externalMiB: number;
}

/** What the soak concludes. */
export interface SoakVerdict {
  /** RSS stayed within the allowance from the first minute after warm-up to the last. */
  flat: boolean;
  /** Median RSS over the first minute after warm-up, and over the last minute, in MiB. */
  rssAfterWarmupMiB: number;
  rssAtEndMiB: number;
  /** The least-squares slope of RSS after warm-up, in MiB per minute. */
  slopeMiBPerMinute: number;
  /** The median and worst of the 10 s p99s after warm-up, in ms. */
  p99MedianMs: number;
  p99WorstMs: number;
  summary: string;
}

const median = (values: number[]) => {
  const sorted = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const slopeOf = (points: Array<[number, number]>) => {
  const n = points.length;
  if (n < 2) return 0;
  const meanX = points.reduce((sum, [x]) => sum + x, 0) / n;
  const meanY = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
  const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
  return variance === 0 ? 0 : covariance / variance;
};

/**
 * Judges a soak. RSS is flat when, from the first minute after warm-up to the last minute,
 * it grew by no more than 5 MiB or 5 %, whichever is larger: room for the animals the soak
 * itself creates (several hundred at its default rate, under a MiB) and the heap's
 * breathing, none for a leak that grows with requests (the soak makes over a hundred thousand).
 */
export const judgeSoak = (samples: readonly SoakSample[], warmupMinutes: number): SoakVerdict => {
  const afterWarmup = samples.filter((sample) => sample.minute > warmupMinutes);
  const steady = afterWarmup.length > 0 ? afterWarmup : [...samples];
  const perMinute = Math.max(1, Math.round(steady.length / Math.max(1, steady.at(-1)!.minute - warmupMinutes)));
  const rssAfterWarmupMiB = median(steady.slice(0, perMinute).map((sample) => sample.rssMiB));
  const rssAtEndMiB = median(steady.slice(-perMinute).map((sample) => sample.rssMiB));
  const slopeMiBPerMinute = slopeOf(steady.map((sample) => [sample.minute, sample.rssMiB]));
  const growth = rssAtEndMiB - rssAfterWarmupMiB;
  const flat = growth <= Math.max(5, rssAfterWarmupMiB * 0.05);
  const p99s = steady.map((sample) => sample.p99Ms.all).filter(Number.isFinite);
  const p99MedianMs = median(p99s);
  const p99WorstMs = Math.max(...p99s);
  const summary =
    `RSS ${flat ? 'flat' : 'NOT flat'} after warm-up: ${rssAfterWarmupMiB.toFixed(1)} → ${rssAtEndMiB.toFixed(1)} MiB ` +
    `(${growth >= 0 ? '+' : ''}${growth.toFixed(1)} MiB, ${slopeMiBPerMinute >= 0 ? '+' : ''}${slopeMiBPerMinute.toFixed(2)} MiB/min); ` +
    `p99 median ${p99MedianMs.toFixed(1)} ms, worst ${p99WorstMs.toFixed(1)} ms.`;
  return { flat, rssAfterWarmupMiB, rssAtEndMiB, slopeMiBPerMinute, p99MedianMs, p99WorstMs, summary };
};
