/**
 * @module A worker thread's entry: reads the keys' part of a data file (its bytes, from the
 * keys' list to the file's end, the one message it is sent) and posts back what `readKeysPart`
 * makes of it, the queue's arrays transferred, or `undefined` when the list is not valid
 * (the caller then reads the whole file itself, and says what is wrong as it always does).
 * See `readKeysInWorker`.
 */
import { parentPort } from 'node:worker_threads';
import { buffersOf } from '../IdempotencyKeys.js';
import { readKeysPart } from './keysPart.js';

parentPort!.once('message', (bytes: Uint8Array) => {
  const part = readKeysPart(bytes);
  parentPort!.postMessage(part, part ? buffersOf(part.snapshot) : []);
});
