/** @module Reads a data file's Idempotency-Keys in a worker thread, while this one reads the animals. */
import { Worker } from 'node:worker_threads';
import { IdempotencyKeys, type IdempotencyKeysSnapshot } from '../IdempotencyKeys.js';

/**
 * The worker of the built package, or, run from the sources (tests, `tsx`), a worker that
 * registers tsx (a dev dependency) and then loads the TypeScript entry: a worker's own
 * `--import` does not reach its entry module.
 */
const spawnKeysWorker = (text: string): Worker => {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./keysWorker.js', import.meta.url), { workerData: text });
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./keysWorker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, workerData: text });
};

/**
 * The queue of the keys list `text` (a JSON array, as the file holds it), parsed, checked
 * and built in a worker thread (`keysWorker`), or `undefined` when the list is not valid or
 * the worker could not run: the caller then reads the file the usual way, in this thread.
 * At a million animals and 100,000 keys, the keys took about half a second of a 2.6 s start
 * (their JSON, the collector, the queue), which now runs beside the animals' parse. Never
 * rejects.
 */
export const readKeysInWorker = (text: string): Promise<IdempotencyKeys | undefined> =>
  new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = spawnKeysWorker(text);
    } catch {
      resolve(undefined);
      return;
    }
    worker.once('message', (snapshot: IdempotencyKeysSnapshot | undefined) => {
      resolve(snapshot && IdempotencyKeys.fromSnapshot(snapshot));
      void worker.terminate();
    });
    // Whichever comes first settles it: a worker that failed to load or threw answers nothing.
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
