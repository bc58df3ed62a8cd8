/** @module Reads the keys' part of a data file in a worker thread, while this one reads the animals. */
import { Worker } from 'node:worker_threads';
import type { KeysPart } from './keysPart.js';

/**
 * The worker of the built package, or, run from the sources (tests, `tsx`), a worker that
 * registers tsx (a dev dependency) and then loads the TypeScript entry: a worker's own
 * `--import` does not reach its entry module.
 */
const spawnKeysWorker = (bytes: Uint8Array): Worker => {
  // The bytes move to the worker, not copied, when they are the whole of their buffer.
  const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer;
  const options = { workerData: bytes, transferList: whole ? [bytes.buffer as ArrayBuffer] : [] };
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL('./keysWorker.js', import.meta.url), options);
  const tsx = import.meta.resolve('tsx/esm/api');
  const entry = new URL('./keysWorker.ts', import.meta.url).href;
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(entry)}); })`;
  return new Worker(code, { eval: true, ...options });
};

/**
 * What `readKeysPart` makes of `bytes` (from a data file's keys' list to its end), made in a
 * worker thread (`keysWorker`), or `undefined` when the list is not valid or the worker
 * could not run: the caller then reads the file the usual way, in this thread. At a million
 * animals and 100,000 keys, the keys took about half a second of a 2.6 s start (their JSON,
 * the collector, the queue), which runs beside the animals' parse. `bytes` are the
 * worker's after the call (moved to it, when they are the whole of their buffer). Never
 * rejects.
 */
export const readKeysInWorker = (bytes: Uint8Array): Promise<KeysPart | undefined> =>
  new Promise((resolve) => {
    let worker: Worker;
    try {
      worker = spawnKeysWorker(bytes);
    } catch {
      resolve(undefined);
      return;
    }
    worker.once('message', (part: KeysPart | undefined) => {
      resolve(part);
      void worker.terminate();
    });
    // Whichever comes first settles it: a worker that failed to load or threw answers nothing.
    worker.once('error', () => resolve(undefined));
    worker.once('exit', () => resolve(undefined));
  });
