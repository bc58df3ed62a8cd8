/** @module Start-up time and memory: spawn → "listening", then VmRSS, on the durable file, for every contender and size. */
import type { BenchContext } from './benchContext.js';
import { errorText } from './benchContext.js';
import { formatCount, median, type StartupResult } from './results.js';
import { CONTENDER_LABELS, type ContenderId, startServer } from './servers.js';

/** `{ [name]: value }` when the value is a number, else nothing: results.json leaves out what /proc could not tell. */
const optional = (name: string, value: number) => (Number.isFinite(value) ? { [name]: value } : {});

/** Starts every contender `repeats` times on each catalogue size and returns the medians. */
export const measureStartup = async (context: BenchContext, sizes: readonly number[], repeats: number): Promise<StartupResult[]> => {
  const startup: StartupResult[] = [];
  for (const animals of sizes) {
    const data = await context.dataFor(animals);
    const samples = new Map<
      ContenderId,
      { startupMs: number; rssMiB: number; peakMiB: number; serverCpu?: number; serverCoreBusy?: number }[]
    >();
    const failures: string[] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      for (const contender of context.contenders) {
        try {
          const server = await startServer(contender, {
            data,
            storage: 'file',
            workDir: context.workDir(),
            pinning: context.pinning,
            compiledDir: context.compiledDir,
          });
          const memory = server.memory();
          await server.stop();
          const list = samples.get(contender) ?? [];
          list.push({
            startupMs: server.startupMs,
            rssMiB: memory?.rssMiB ?? NaN,
            peakMiB: memory?.peakMiB ?? NaN,
            serverCpu: server.startupCpu.serverCpu,
            serverCoreBusy: server.startupCpu.serverCoreBusy,
          });
          samples.set(contender, list);
          context.log(
            `start-up ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)}: ${server.startupMs.toFixed(0)} ms, ${memory?.rssMiB.toFixed(0)} MiB; ` +
              `CPU ${server.startupCpu.serverCpu?.toFixed(0) ?? '?'}% (core ${server.startupCpu.serverCoreBusy?.toFixed(0) ?? '?'}%)`,
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
        ...optional('serverCpu', median(list.map((sample) => sample.serverCpu))),
        ...optional('serverCoreBusy', median(list.map((sample) => sample.serverCoreBusy))),
        runs: list.length,
      };
    }
    startup.push(result);
  }
  return startup;
};
