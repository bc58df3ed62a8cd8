/**
 * @module Memory per create in the memory storage or a JSON data file, plain and keyed: heap
 * and RSS after a full GC, divided by the creates. Run alone:
 * `node --expose-gc --import tsx test/bench/measureKeyMemory.ts [creates] [nameLength] [memory|file]`.
 * The data file's creates go 500 at a time (group commit), and its journal is written whole
 * from 1 MiB on (8 MiB in a server); memory is read after the file is closed and opened
 * again, as a server holds it after a restart: the animals and keys, not their bytes (the
 * first whole write copies those from the file).
 */
import { createHash, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { PetStorage } from '../../core/PetStorage.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { openJsonFileStorage } from '../../storage/jsonFile/openJsonFileStorage.js';

const creates = Number(process.argv[2] ?? 500_000);
const nameLength = Number(process.argv[3] ?? 12);
const kind = process.argv[4] ?? 'memory';
const AT_ONCE = kind === 'file' ? 500 : 1;
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-key-memory-'));
let files = 0;
const openStorage = async (file: string): Promise<PetStorage> =>
  kind === 'file'
    ? // A small journal bound, so plain and keyed creates alike see whole writes (and keep the animals' bytes they leave).
      openJsonFileStorage({ file, journalMinBytes: 1024 * 1024 })
    : createMemoryStorage([], { limit: 16_000_000 });
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with node --expose-gc.');

const settle = () => {
  for (let round = 0; round < 3; round++) gc();
  return process.memoryUsage();
};

/**
 * Memory once nothing is being written: a data file writes its document whole alongside the
 * creates (at 500,000 keys it holds the keys' bytes, about 0.3 KB a key, for a second or
 * two), and what a create holds is what stays after that.
 */
const settled = async () => {
  let before = settle();
  for (let round = 0; round < 20; round++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const now = settle();
    if (now.external >= before.external * 0.99 && now.heapUsed >= before.heapUsed * 0.99) return now;
    before = now;
  }
  return before;
};

/** Bytes per create of `creates` creates, plain or keyed, each in a fresh storage. */
const measure = async (keyed: boolean) => {
  const file = path.join(folder, `animals-${files++}.json`);
  let storage = await openStorage(file);
  // The scope is the API key's fingerprint, one string per API key; the fingerprint a fresh digest per request.
  const scope = createHash('sha256').update('one api key').digest('hex');
  const before = settle();
  const start = Date.now();
  const createOne = async (count: number) => {
    const newPet = { name: `Animal ${count}`.padEnd(nameLength, '.'), categoryId: 1 + (count % 7), status: 'available' as const };
    if (!keyed) await storage.create(newPet);
    else {
      const fingerprint = createHash('sha256').update(String(count)).digest().subarray(0, 8).toString('base64url');
      await storage.createIdempotent(newPet, { scope, key: randomUUID(), fingerprint, createdAt: start, expiresAt: start + 86_400_000 });
    }
  };
  for (let count = 0; count < creates; count += AT_ONCE) {
    await Promise.all(Array.from({ length: Math.min(AT_ONCE, creates - count) }, (_, offset) => createOne(count + offset)));
  }
  if (kind === 'file') {
    // What a data file holds depends on when its last whole write was (it keeps the bytes of
    // the animals it wrote, for the next one), which differs between runs by chance. So each
    // run ends as a server does after a restart: the file closed, opened again, and the
    // animals' bytes prepared in the background (well under a second at 500,000).
    await storage.close();
    storage = await openStorage(file);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
  }
  const after = await settled();
  const result = {
    heap: (after.heapUsed - before.heapUsed) / creates,
    // Typed arrays live outside the heap, in `external`: not `arrayBuffers`, which counts only
    // buffers this thread allocated, and a data file of many keys has its keys' arrays made in
    // a worker thread at the start and handed over.
    external: (after.external - before.external) / creates,
    rss: (after.rss - before.rss) / creates,
  };
  await storage.close();
  return result;
};

const plain = await measure(false);
settle();
const keyed = await measure(true);
const round = (value: number) => Math.round(value);
const heapAndBuffers = (m: typeof plain) => m.heap + m.external;
console.log(`${kind === 'file' ? 'a JSON data file' : 'the memory storage'}: creates: ${creates}, name length ${nameLength}`);
console.log(`plain create: heap ${round(plain.heap)} B, typed arrays ${round(plain.external)} B, rss ${round(plain.rss)} B`);
console.log(`keyed create: heap ${round(keyed.heap)} B, typed arrays ${round(keyed.external)} B, rss ${round(keyed.rss)} B`);
console.log(
  `a live key costs ${(((heapAndBuffers(keyed) - heapAndBuffers(plain)) / heapAndBuffers(plain)) * 100).toFixed(0)}% of an animal (heap and typed arrays); keyed/plain rss ${(keyed.rss / plain.rss).toFixed(2)}`,
);
fs.rmSync(folder, { recursive: true, force: true });
