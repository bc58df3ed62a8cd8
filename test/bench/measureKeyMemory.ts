/**
 * @module Memory per create in the memory storage, plain and keyed: heap and RSS after a
 * full GC, divided by the creates. Run alone:
 * `node --expose-gc --import tsx test/bench/measureKeyMemory.ts [creates] [nameLength]`.
 */
import { createHash, randomUUID } from 'node:crypto';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';

const creates = Number(process.argv[2] ?? 500_000);
const nameLength = Number(process.argv[3] ?? 12);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('Run with node --expose-gc.');

const settle = () => {
  for (let round = 0; round < 3; round++) gc();
  return process.memoryUsage();
};

/** Bytes per create of `creates` creates, plain or keyed, each in a fresh storage. */
const measure = async (keyed: boolean) => {
  const storage = createMemoryStorage([], { limit: 16_000_000 });
  // The scope is the API key's fingerprint, one string per API key; the fingerprint a fresh digest per request.
  const scope = createHash('sha256').update('one api key').digest('hex');
  const before = settle();
  const start = Date.now();
  for (let count = 0; count < creates; count++) {
    const newPet = { name: `Animal ${count}`.padEnd(nameLength, '.'), categoryId: 1 + (count % 7), status: 'available' as const };
    if (!keyed) await storage.create(newPet);
    else {
      const fingerprint = createHash('sha256').update(String(count)).digest().subarray(0, 24).toString('base64url');
      await storage.createIdempotent(newPet, { scope, key: randomUUID(), fingerprint, createdAt: start, expiresAt: start + 86_400_000 });
    }
  }
  const after = settle();
  const result = {
    heap: (after.heapUsed - before.heapUsed) / creates,
    // Typed arrays live outside the heap, in `arrayBuffers`.
    external: (after.arrayBuffers - before.arrayBuffers) / creates,
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
console.log(`creates: ${creates}, name length ${nameLength}`);
console.log(`plain create: heap ${round(plain.heap)} B, typed arrays ${round(plain.external)} B, rss ${round(plain.rss)} B`);
console.log(`keyed create: heap ${round(keyed.heap)} B, typed arrays ${round(keyed.external)} B, rss ${round(keyed.rss)} B`);
console.log(
  `a live key costs ${(((heapAndBuffers(keyed) - heapAndBuffers(plain)) / heapAndBuffers(plain)) * 100).toFixed(0)}% of an animal (heap and typed arrays); keyed/plain rss ${(keyed.rss / plain.rss).toFixed(2)}`,
);
