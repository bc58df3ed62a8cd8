/** @module Reads the keys' part of a data file in a worker thread, while this one reads the animals. */
import { Worker } from 'node:worker_threads';
import type { Pet } from '../../../core/schemas/Pet.js';
import type { JournalChanges, LentChanges } from '../../durableFile/index.js';
import type { KeysPart } from './keysPart.js';

/** What the worker is sent: the keys' part's bytes, and the journal's changes, lent (see `JournalChanges.lend`). */
export interface KeysWork {
  keys: Uint8Array;
  journal: LentChanges | undefined;
}

/**
 * What the worker answers: `readKeysPart`'s, the journal's animals as JSON text (parsed here
 * in a third of the time the structured clone of 100,000 animals took to arrive).
 */
export type KeysAnswer =
  | (Omit<KeysPart, 'changes'> & { changes: (Omit<NonNullable<KeysPart['changes']>, 'pets'> & { pets: string }) | undefined })
  | undefined;

/**
 * The worker of the built package, or, run from the sources (tests, `tsx`), a worker that
 * registers tsx (a dev dependency) and then loads the TypeScript entry: a worker's own
 * `--import` does not reach its entry module.
 */
const spawnKeysWorker = (): Worker => {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./keysWorker.js', import.meta.url));
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./keysWorker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true });
};

/**
 * What `readKeysPart` makes of `bytes` (a data file's keys' list, from its `[` to its `]`)
 * and of the journal's first `count` `changes` (all by default), made in a worker thread
 * (`keysWorker`), or `undefined` when the list is not valid, the bytes could not be read, or
 * the worker could not run: the caller then reads the file the usual way, in this thread.
 * The changes' bytes go to the worker (see `JournalChanges.lend`: all of them move, fewer
 * are copied; the worker frees them): should it not read them, the caller reads them again
 * (`JournalChanges.readable`). The worker starts at once and loads while the keys' bytes
 * are read; they move to it (not copied, when they are the whole of their buffer) and are
 * its own after. At a million animals and 100,000 keys, the keys took about half a second of a
 * 2.6 s start (their JSON, the collector, the queue), which runs beside the animals' parse.
 * Never rejects.
 */
export const readKeysInWorker = (
  bytes: Promise<Uint8Array | undefined>,
  changes?: JournalChanges,
  count?: number,
): Promise<KeysPart | undefined> =>
  new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = spawnKeysWorker();
    } catch {
      resolve(undefined);
      bytes.catch(() => {});
      return;
    }
    const stop = (part: KeysPart | undefined) => {
      resolve(part);
      void worker.terminate();
    };
    worker.once('message', (answer: KeysAnswer) =>
      stop(answer && { ...answer, changes: answer.changes && { ...answer.changes, pets: JSON.parse(answer.changes.pets) as Pet[] } }),
    );
    // Whichever comes first settles it: a worker that failed to load or threw answers nothing.
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
    bytes.then(
      (read) => {
        if (read === undefined) return stop(undefined);
        const whole = read.byteOffset === 0 && read.byteLength === read.buffer.byteLength && read.buffer instanceof ArrayBuffer;
        const lent = changes?.lend(count);
        const work: KeysWork = { keys: read, journal: lent?.changes };
        worker.postMessage(work, [...(whole ? [read.buffer as ArrayBuffer] : []), ...(lent?.transfer ?? [])]);
      },
      () => stop(undefined),
    );
  });
