/**
 * @module A worker thread's entry: reads the keys' part of a data file (its bytes as
 * `workerData`, from the keys' list to the file's end) and posts back what `readKeysPart`
 * makes of it, the queue's arrays transferred, or `undefined` when the list is not valid
 * (the caller then reads the whole file itself, and says what is wrong as it always does).
 * See `readKeysInWorker`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf } from '../IdempotencyKeys.js';
import { readKeysPart } from './keysPart.js';

const part = readKeysPart(workerData as Uint8Array);
parentPort!.postMessage(part, part ? buffersOf(part.snapshot) : []);
