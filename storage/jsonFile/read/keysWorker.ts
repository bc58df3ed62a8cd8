/**
 * @module A worker thread's entry: reads a data file's keys' list (its bytes) and the
 * journal's changes beside it (see `KeysWork`, the one message it is sent), and posts back
 * what `readKeysPart` makes of them, the queue's arrays transferred, or `undefined` when the
 * list is not valid (the caller then reads the whole file itself, and says what is wrong as
 * it always does). See `readKeysInWorker`.
 */
import { parentPort } from 'node:worker_threads';
// Not the durable layer's entry (index.js): a worker need not load that layer whole.
import { JournalChanges } from '../../durableFile/JournalChanges.js';
import { buffersOf } from '../../IdempotencyKeys.js';
import { readKeysPart } from './keysPart.js';
import type { KeysAnswer, KeysWork } from './readKeysInWorker.js';

parentPort!.once('message', ({ keys, journal }: KeysWork) => {
  const changes = journal && JournalChanges.borrowed(journal);
  const part = readKeysPart(keys, changes);
  changes?.free();
  const answer: KeysAnswer = part && { ...part, changes: part.changes && { ...part.changes, pets: JSON.stringify(part.changes.pets) } };
  parentPort!.postMessage(answer, part ? buffersOf(part.snapshot) : []);
});
