/**
 * @module CPU use during a load, read from /proc: how much of a core the server process and
 * the load generator each used, and how busy their two cores were in all. The proof, in the
 * output, of which side set the pace: a server near 100 % of its core with the generator
 * below it was measured; a generator near 100 % measured itself.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Percentages of one core, averaged over the load; a figure is missing when /proc could not tell. */
export interface CpuFigures {
  /** The server process (all its threads). */
  serverCpu?: number;
  /** The load generator process (wrk, or this process running autocannon). */
  generatorCpu?: number;
  /** The server's core, busy with anything (other programs on the machine included). */
  serverCoreBusy?: number;
  /** The generator's core, busy with anything. */
  loadCoreBusy?: number;
}

/** What to watch. */
export interface CpuTargets {
  serverPid: number;
  /** The load generator's process; none while a server starts. */
  generatorPid?: number;
  serverCore?: number;
  loadCore?: number;
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on every common Linux). */
const ticksPerSecond = (() => {
  if (process.platform !== 'linux') return 100;
  const answer = spawnSync('getconf', ['CLK_TCK'], { encoding: 'utf8' });
  const value = Number(answer.stdout?.trim());
  return Number.isFinite(value) && value > 0 ? value : 100;
})();

/** User plus system ticks of a process, all its threads; undefined once it is gone. */
const processTicks = (pid: number): number | undefined => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name may hold spaces and parentheses: count fields after its last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return undefined;
  }
};

/** Busy and total ticks per core, from /proc/stat. */
const coreTicks = (): Map<number, { busy: number; total: number }> => {
  const cores = new Map<number, { busy: number; total: number }>();
  try {
    for (const line of readFileSync('/proc/stat', 'utf8').split('\n')) {
      const match = /^cpu(\d+) (.*)$/.exec(line);
      if (!match) continue;
      // user nice system idle iowait irq softirq steal (guest time is inside user already)
      const [user, nice, system, idle, iowait, irq, softirq, steal] = match[2]!.trim().split(/\s+/).map(Number);
      const busy = user! + nice! + system! + irq! + softirq! + (steal ?? 0);
      cores.set(Number(match[1]), { busy, total: busy + idle! + iowait! });
    }
  } catch {
    // Not Linux: no core figures.
  }
  return cores;
};

interface Sample {
  at: number;
  ticks: number;
}

/** Percent of a core between the first and the last sample of a series. */
const percentOf = (series: Sample[]): number | undefined => {
  const first = series[0];
  const last = series.at(-1);
  if (!first || !last || last.at - first.at < 50) return undefined;
  return (100 * (last.ticks - first.ticks)) / ticksPerSecond / ((last.at - first.at) / 1000);
};

/**
 * Samples the server, the generator and their cores every `intervalMs` until `stop()`,
 * which returns the averages. The generator may exit first (wrk does, at the end of its
 * run): its figure then covers the time up to its last sample.
 */
export const startCpuSampling = (targets: CpuTargets, intervalMs = 200) => {
  if (process.platform !== 'linux') return { stop: (): CpuFigures => ({}) };
  const server: Sample[] = [];
  const generator: Sample[] = [];
  const cores: { at: number; ticks: ReturnType<typeof coreTicks> }[] = [];
  const sample = () => {
    const at = performance.now();
    const serverTicks = processTicks(targets.serverPid);
    if (serverTicks !== undefined) server.push({ at, ticks: serverTicks });
    const generatorTicks = targets.generatorPid === undefined ? undefined : processTicks(targets.generatorPid);
    if (generatorTicks !== undefined) generator.push({ at, ticks: generatorTicks });
    cores.push({ at, ticks: coreTicks() });
  };
  sample();
  const timer = setInterval(sample, intervalMs);
  const coreBusy = (core: number | undefined) => {
    if (core === undefined) return undefined;
    const first = cores[0]?.ticks.get(core);
    const last = cores.at(-1)?.ticks.get(core);
    if (!first || !last || last.total === first.total) return undefined;
    return (100 * (last.busy - first.busy)) / (last.total - first.total);
  };
  return {
    /** Stops sampling and returns the averages since the start. */
    stop: (): CpuFigures => {
      clearInterval(timer);
      sample();
      return {
        serverCpu: percentOf(server),
        generatorCpu: percentOf(generator),
        serverCoreBusy: coreBusy(targets.serverCore),
        loadCoreBusy: coreBusy(targets.loadCore),
      };
    },
  };
};
