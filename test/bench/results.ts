/** @module The shape of results.json, medians and ratios, and the targets judged from them. */
import type { Machine } from './machine.js';
import type { ContenderId } from './servers.js';
import type { LoadFigures, Operation } from './workloads.js';

/** Which catalogue a workload runs on: small (1k), medium (10k) or large (1M) in a full run. */
export type Scale = 'small' | 'medium' | 'large';

/** One contender's runs of one workload, and their medians. */
export interface ContenderFigures {
  runs: LoadFigures[];
  /** Medians over the runs of each figure separately; undefined when no run succeeded. */
  median: LoadFigures | undefined;
  /** Why a run failed, when one did. */
  failures: string[];
}

/** One row of the table: an operation on a catalogue, measured on every contender. */
export interface WorkloadResult {
  id: `${Operation}@${Scale}`;
  operation: Operation;
  scale: Scale;
  animals: number;
  label: string;
  contenders: Partial<Record<ContenderId, ContenderFigures>>;
  /** Median throughput of ours (and of json-server) divided by the baseline's. */
  ratioToBaseline: Partial<Record<ContenderId, number>>;
}

/** Start-up time and memory of one contender on one catalogue size. */
export interface StartupFigures {
  /** Median milliseconds from spawn to listening. */
  startupMs: number;
  /** Median resident memory right after start, MiB. */
  rssMiB: number;
  /** Median peak resident memory up to then (VmHWM), MiB. */
  peakMiB: number;
  runs: number;
}

/** Start-up of every contender on one catalogue size. */
export interface StartupResult {
  animals: number;
  contenders: Partial<Record<ContenderId, StartupFigures>>;
  failures: string[];
}

/** One of the targets, as measured. */
export interface TargetResult {
  target: string;
  measured: string;
  /** undefined when a figure it needs is missing. */
  holds: boolean | undefined;
}

/** Everything results.json holds. */
export interface BenchResults {
  startedAt: string;
  finishedAt: string;
  quick: boolean;
  /** The commit our server was built from (with "+ changes" when its folders had uncommitted ones). */
  source?: string;
  machine: Machine;
  settings: { connections: number; seconds: number; warmupSeconds: number; rounds: number; ourServer: string };
  workloads: WorkloadResult[];
  startup: StartupResult[];
  targets: TargetResult[];
}

/** The median of numbers (the mean of the middle two for an even count); NaN for none. */
export const median = (values: readonly number[]): number => {
  const sorted = values.filter((value) => Number.isFinite(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

/** The medians of each figure over some runs. */
export const medianFigures = (runs: readonly LoadFigures[]): LoadFigures | undefined =>
  runs.length === 0
    ? undefined
    : {
        requestsPerSecond: median(runs.map((run) => run.requestsPerSecond)),
        p50: median(runs.map((run) => run.p50)),
        p99: median(runs.map((run) => run.p99)),
        non2xx: Math.max(...runs.map((run) => run.non2xx)),
        errors: Math.max(...runs.map((run) => run.errors)),
        timeouts: Math.max(...runs.map((run) => run.timeouts)),
      };

/** Short counts: 1000 → 1k, 1000000 → 1M. */
export const formatCount = (count: number): string =>
  count >= 1_000_000 && count % 100_000 === 0
    ? `${count / 1_000_000}M`
    : count >= 1_000 && count % 100 === 0
      ? `${count / 1_000}k`
      : String(count);

const rpsOf = (results: BenchResults, id: WorkloadResult['id'], contender: ContenderId) =>
  results.workloads.find((workload) => workload.id === id)?.contenders[contender]?.median?.requestsPerSecond;
const workloadOf = (results: BenchResults, id: WorkloadResult['id']) => results.workloads.find((workload) => workload.id === id);

const fixed = (value: number | undefined, digits = 2) => (value === undefined || !Number.isFinite(value) ? 'n/a' : value.toFixed(digits));
const times = (value: number | undefined, digits = 2) =>
  value === undefined || !Number.isFinite(value) ? 'n/a' : `${value.toFixed(digits)}×`;
const judge = (...checks: (boolean | undefined)[]) => (checks.some((check) => check === undefined) ? undefined : checks.every(Boolean));
const atLeast = (value: number | undefined, bound: number) => (value === undefined || !Number.isFinite(value) ? undefined : value >= bound);
const below = (value: number | undefined, bound: number) => (value === undefined || !Number.isFinite(value) ? undefined : value < bound);

/** Judges the targets from the medians (a quick run judges its small catalogues the same way). */
export const judgeTargets = (results: BenchResults): TargetResult[] => {
  const targets: TargetResult[] = [];
  const list = workloadOf(results, 'list20@medium');
  if (list) {
    const toBaseline = list.ratioToBaseline.ours;
    const ours = rpsOf(results, 'list20@medium', 'ours');
    const json = rpsOf(results, 'list20@medium', 'jsonServer');
    const toJson = ours !== undefined && json ? ours / json : undefined;
    targets.push({
      target: `GET ?limit=20 at ${formatCount(list.animals)}: ≥ 0.75× node:http and ≥ 10× json-server`,
      measured: `${times(toBaseline)} node:http, ${times(toJson, 1)} json-server`,
      holds: judge(atLeast(toBaseline, 0.75), atLeast(toJson, 10)),
    });
  }
  const create = workloadOf(results, 'createDurable@medium');
  if (create) {
    const ours = create.contenders.ours?.median;
    const json = rpsOf(results, 'createDurable@medium', 'jsonServer');
    const toJson = ours && json ? ours.requestsPerSecond / json : undefined;
    targets.push({
      target: `durable POST at ${formatCount(create.animals)}, 50 connections: ≥ 5,000/s, p99 < 50 ms, ≥ 30× json-server`,
      measured: `${fixed(ours?.requestsPerSecond, 0)}/s, p99 ${fixed(ours?.p99, 0)} ms, ${times(toJson, 1)} json-server`,
      holds: judge(atLeast(ours?.requestsPerSecond, 5000), below(ours?.p99, 50), atLeast(toJson, 30)),
    });
  }
  for (const operation of ['list20', 'list100sold'] as const) {
    const small = workloadOf(results, `${operation}@small`);
    const large = workloadOf(results, `${operation}@large`);
    if (!small || !large) continue;
    const smallRps = rpsOf(results, small.id, 'ours');
    const largeRps = rpsOf(results, large.id, 'ours');
    const slowdown = smallRps !== undefined && largeRps ? smallRps / largeRps : undefined;
    targets.push({
      target: `${small.label.split(' · ')[0]} at ${formatCount(large.animals)} within 1.2× of ${formatCount(small.animals)}`,
      measured: `${fixed(largeRps, 0)} vs ${fixed(smallRps, 0)} req/s: ${formatCount(small.animals)} ÷ ${formatCount(large.animals)} = ${times(slowdown)}`,
      holds: slowdown === undefined ? undefined : slowdown <= 1.2,
    });
  }
  const largest = results.startup.at(-1);
  const ours = largest?.contenders.ours;
  if (largest) {
    targets.push({
      target: `start-up with ${formatCount(largest.animals)} animals: < 3 s and < 600 MB resident`,
      measured: `${fixed(ours && ours.startupMs / 1000)} s, ${fixed(ours?.rssMiB, 0)} MiB (peak ${fixed(ours?.peakMiB, 0)} MiB)`,
      holds: judge(below(ours?.startupMs, 3000), below(ours && (ours.rssMiB * 2 ** 20) / 1e6, 600)),
    });
  }
  return targets;
};
