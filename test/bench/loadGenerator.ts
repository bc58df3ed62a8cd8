/**
 * @module Which load generator the bench uses, and whether targets may be judged from what
 * it measures: wrk's figures, yes; autocannon's, never (on one core it is slower than the
 * servers it loads).
 */
import { autocannonVersion, runAutocannon } from './autocannonLoad.js';
import type { LoadFigures, LoadSettings, Operation } from './workloads.js';
import { type LoadTarget, runWrk, WRK_INSTALL, wrkVersion } from './wrkLoad.js';

/** The generator names `--generator` takes. */
export const GENERATORS = ['wrk', 'autocannon'] as const;
/** A load generator's name. */
export type GeneratorName = (typeof GENERATORS)[number];

/** A load generator, ready to run. */
export interface LoadGenerator {
  name: GeneratorName;
  version: string;
  /** Whether its figures may be judged against the targets. */
  judgeable: boolean;
  /** How it runs, or why it was chosen, for the report. */
  note: string;
  run(target: LoadTarget, operation: Operation, animals: number, settings: LoadSettings): Promise<LoadFigures>;
}

const wrk = (version: string): LoadGenerator => ({
  name: 'wrk',
  version,
  judgeable: true,
  note: `wrk ${version}, one thread, as a separate process`,
  run: runWrk,
});

const autocannon = (why: string): LoadGenerator => ({
  name: 'autocannon',
  version: autocannonVersion(),
  judgeable: false,
  note: `autocannon ${autocannonVersion()} inside the bench's own process (${why}): it is slower than the servers it loads, so its figures are not judged; ${WRK_INSTALL}`,
  run: runAutocannon,
});

/**
 * The generator to use: the one asked for, else wrk, else (in a quick run only) autocannon.
 * A full run without wrk stops here, saying how to install it.
 */
export const chooseLoadGenerator = (requested: GeneratorName | undefined, quick: boolean): LoadGenerator => {
  if (requested === 'autocannon') return autocannon('asked for with --generator autocannon');
  const version = wrkVersion();
  if (version !== undefined) return wrk(version);
  if (requested === 'wrk') throw new Error(`--generator wrk, but wrk is not installed: ${WRK_INSTALL}`);
  if (quick) return autocannon('wrk is not installed');
  throw new Error(
    `wrk is not installed, and without it the bench measures its own load generator, not the servers: ${WRK_INSTALL}. ` +
      'To measure anyway, with figures that are not judged, pass --generator autocannon.',
  );
};
