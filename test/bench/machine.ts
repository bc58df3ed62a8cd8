/** @module What the benchmark runs on, and pinning the load generator and the servers to separate cores. */
import { spawnSync } from 'node:child_process';
import { cpus, release, totalmem } from 'node:os';

/** Where the servers and the load generator run. */
export interface Pinning {
  /** Whether the load generator (wrk, or autocannon in this process) and the servers run on separate cores. */
  applied: boolean;
  /** The core every server is started on, when pinned. */
  serverCpu?: number;
  /** The core the load generator (and this process) runs on, when pinned. */
  loadCpu?: number;
  /** What was done, or why it could not be. */
  note: string;
}

/** The machine, as results.json and the table header describe it. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  os: string;
  pinning: Pinning;
}

/** Expands a taskset affinity list such as `0-3,6` into core numbers. */
const parseCpuList = (list: string): number[] =>
  list.split(',').flatMap((part) => {
    const [from, to] = part.trim().split('-').map(Number);
    if (from === undefined || !Number.isInteger(from)) return [];
    if (to === undefined) return [from];
    return Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);
  });

/**
 * The cores to keep the load generator and the servers apart on: the first core this process
 * may use for the load generator, the last for the servers. Pins nothing itself: the
 * caller starts children there (`onLoadCore`, `onServerCore`), or pins this process
 * (`pinLoadGenerator`). Gives up, saying why, on a machine without `taskset` or with fewer
 * than two cores.
 */
export const separateCores = (): Pinning => {
  if (process.platform !== 'linux') return { applied: false, note: `not pinned: taskset needs Linux (this is ${process.platform})` };
  const current = spawnSync('taskset', ['-pc', String(process.pid)], { encoding: 'utf8' });
  if (current.error || current.status !== 0) return { applied: false, note: 'not pinned: taskset is not available' };
  const allowed = parseCpuList(/list:\s*(\S+)/.exec(current.stdout)?.[1] ?? '');
  if (allowed.length < 2) return { applied: false, note: `not pinned: only ${allowed.length} core(s) available to this process` };
  const loadCpu = allowed[0]!;
  const serverCpu = allowed.at(-1)!;
  return { applied: true, serverCpu, loadCpu, note: `server on core ${serverCpu}, load generator on core ${loadCpu} (taskset)` };
};

/**
 * Pins this process (every thread of it, and so every child it starts) to the load
 * generator's core of `separateCores`, so the load generator and the server under test do
 * not share a core.
 */
export const pinLoadGenerator = (): Pinning => {
  const cores = separateCores();
  if (!cores.applied) return cores;
  const pinned = spawnSync('taskset', ['-a', '-pc', String(cores.loadCpu), String(process.pid)], { encoding: 'utf8' });
  if (pinned.error || pinned.status !== 0) {
    return { applied: false, note: `not pinned: taskset refused (${(pinned.stderr || String(pinned.error)).trim().slice(0, 120)})` };
  }
  return cores;
};

/** Describes the machine, with the pinning that was (or was not) applied. */
export const describeMachine = (pinning: Pinning): Machine => ({
  cpu: cpus()[0]?.model.trim() ?? 'unknown',
  cores: cpus().length,
  memoryGiB: Math.round(totalmem() / 2 ** 30),
  node: process.version,
  os: `${process.platform} ${release()}`,
  pinning,
});

/** The command that starts `args` on the server core, or as is when not pinned. */
export const onServerCore = (pinning: Pinning, command: string, args: string[]): [string, string[]] =>
  pinning.applied ? ['taskset', ['-c', String(pinning.serverCpu), command, ...args]] : [command, args];

/** The command that starts `args` on the load generator's core, or as is when not pinned. */
export const onLoadCore = (pinning: Pinning, command: string, args: string[]): [string, string[]] =>
  pinning.applied ? ['taskset', ['-c', String(pinning.loadCpu), command, ...args]] : [command, args];
