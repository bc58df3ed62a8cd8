/**
 * @module A worker thread's entry: parses and checks the Idempotency-Keys list of a data file
 * (its text as `workerData`) and posts back the queue they make, its arrays transferred, or
 * `undefined` when the list is not valid (the caller then parses the whole file itself, and
 * says what is wrong as it always does). See `readKeysInWorker`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { buffersOf, IdempotencyKeys, type IdempotencyKeysSnapshot } from '../IdempotencyKeys.js';
import { keysProblem } from './checkPetFile.js';
import { type IdempotencyKeyInFile, keyFromFile } from './PetFileData.js';

const queueOf = (text: string): IdempotencyKeysSnapshot | undefined => {
  let keys: unknown;
  try {
    keys = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!Array.isArray(keys) || keysProblem(2, keys)) return undefined;
  return new IdempotencyKeys((keys as IdempotencyKeyInFile[]).map(keyFromFile)).snapshot();
};

const snapshot = queueOf(workerData as string);
parentPort!.postMessage(snapshot, snapshot ? buffersOf(snapshot) : []);
