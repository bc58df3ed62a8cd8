/** @module Start-up time and memory: spawn → "listening", then VmRSS, on the durable file, for every contender and size. */
import type { BenchContext } from './benchContext.js';
import { errorText } from './benchContext.js';
import { formatCount, median, type StartupResult } from './results.js';
import { CONTENDER_LABELS, type ContenderId, startServer } from './servers.js';

/** Starts every contender `repeats` times on each catalogue size and returns the medians. */
export const measureStartup = async (context: BenchContext, sizes: readonly number[], repeats: number): Promise<StartupResult[]> => {
  const startup: StartupResult[] = [];
  for (const animals of sizes) {
    const data = await context.dataFor(animals);
    const samples = new Map<ContenderId, { startupMs: number; rssMiB: number; peakMiB: number }[]>();
    const failures: string[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const contender of context.contenders) {
        try {
          const server = await startServer(contender, {
            data,
            store: 'file',
            workDir: context.workDir(),
            pinning: context.pinning,
            compiledDir: context.compiledDir,
          });
          const memory = server.memory();
          await server.stop();
          const list = samples.get(contender) ?? [];
          list.push({ startupMs: server.startupMs, rssMiB: memory?.rssMiB ?? NaN, peakMiB: memory?.peakMiB ?? NaN });
          samples.set(contender, list);
          context.log(
            `start-up ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)}: ${server.startupMs.toFixed(0)} ms, ${memory?.rssMiB.toFixed(0)} MiB`,
          );
        } catch (error) {
          context.failed();
          failures.push(`${contender}: ${errorText(error)}`);
          context.log(`start-up ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)} FAILED: ${errorText(error)}`);
        }
      }
    }
    const result: StartupResult = { animals, contenders: {}, failures };
    for (const [contender, list] of samples) {
      result.contenders[contender] = {
        startupMs: median(list.map((sample) => sample.startupMs)),
        rssMiB: median(list.map((sample) => sample.rssMiB)),
        peakMiB: median(list.map((sample) => sample.peakMiB)),
        runs: list.length,
      };
    }
    startup.push(result);
  }
  return startup;
};
