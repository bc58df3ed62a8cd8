/** @module Start-up time and memory: spawn → "listening", then VmRSS, on the durable file for every contender, and ours on PostgreSQL, for every size. */
import type { BenchContext } from './benchContext.js';
import { errorText } from './benchContext.js';
import { formatCount, median, type StartupFigures, type StartupResult } from './results.js';
import { CONTENDER_LABELS, type ContenderId, type StorageKind, startServer } from './servers.js';

/** `{ [name]: value }` when the value is a number, else nothing: results.json leaves out what /proc could not tell. */
const optional = (name: string, value: number) => (Number.isFinite(value) ? { [name]: value } : {});

/** One start's figures. */
interface StartupSample {
  startupMs: number;
  rssMiB: number;
  peakMiB: number;
  serverCpu?: number;
  serverCoreBusy?: number;
}

/** The medians of some starts. */
const medianStartup = (list: StartupSample[]): StartupFigures => ({
  startupMs: median(list.map((sample) => sample.startupMs)),
  rssMiB: median(list.map((sample) => sample.rssMiB)),
  peakMiB: median(list.map((sample) => sample.peakMiB)),
  ...optional('serverCpu', median(list.map((sample) => sample.serverCpu))),
  ...optional('serverCoreBusy', median(list.map((sample) => sample.serverCoreBusy))),
  runs: list.length,
});

/**
 * Starts every contender `repeats` times on each catalogue size in the file, and our server
 * as often on PostgreSQL holding the same animals when the run has a database; returns the medians.
 */
export const measureStartup = async (context: BenchContext, sizes: readonly number[], repeats: number): Promise<StartupResult[]> => {
  const startup: StartupResult[] = [];
  for (const animals of sizes) {
    const data = await context.dataFor(animals);
    const failures: string[] = [];
    /** Starts one contender on one storage, stops it, and answers its figures (undefined when it failed). */
    const startOnce = async (contender: ContenderId, storage: StorageKind): Promise<StartupSample | undefined> => {
      const name = `start-up ${CONTENDER_LABELS[contender]}${storage === 'postgres' ? ' on PostgreSQL' : ''} @ ${formatCount(animals)}`;
      try {
        const server = await startServer(contender, {
          data,
          storage,
          databaseUrl: context.database?.url,
          workDir: context.workDir(),
          pinning: context.pinning,
          compiledDir: context.compiledDir,
        });
        const memory = server.memory();
        await server.stop();
        context.log(
          `${name}: ${server.startupMs.toFixed(0)} ms, ${memory?.rssMiB.toFixed(0)} MiB; ` +
            `CPU ${server.startupCpu.serverCpu?.toFixed(0) ?? '?'}% (core ${server.startupCpu.serverCoreBusy?.toFixed(0) ?? '?'}%)`,
        );
        return {
          startupMs: server.startupMs,
          rssMiB: memory?.rssMiB ?? NaN,
          peakMiB: memory?.peakMiB ?? NaN,
          serverCpu: server.startupCpu.serverCpu,
          serverCoreBusy: server.startupCpu.serverCoreBusy,
        };
      } catch (error) {
        context.failed();
        failures.push(`${contender}${storage === 'postgres' ? ' on PostgreSQL' : ''}: ${errorText(error)}`);
        context.log(`${name} FAILED: ${errorText(error)}`);
        return undefined;
      }
    };

    const samples = new Map<ContenderId, StartupSample[]>();
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const contender of context.contenders) {
        const sample = await startOnce(contender, 'file');
        if (sample) samples.set(contender, [...(samples.get(contender) ?? []), sample]);
      }
    }
    const postgresSamples: StartupSample[] = [];
    if (context.database && context.contenders.includes('ours')) {
      await context.database.seed(animals);
      for (let repeat = 0; repeat < repeats; repeat++) {
        const sample = await startOnce('ours', 'postgres');
        if (sample) postgresSamples.push(sample);
      }
    }
    const result: StartupResult = { animals, contenders: {}, failures };
    for (const [contender, list] of samples) result.contenders[contender] = medianStartup(list);
    if (postgresSamples.length > 0) result.oursOnPostgres = medianStartup(postgresSamples);
    startup.push(result);
  }
  return startup;
};
