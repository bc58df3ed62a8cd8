/**
 * @module What `IdempotencyKeys` costs a key, by the shape of its text: bytes in its arrays
 * (a snapshot's buffers, the lookup table apart), and the microseconds an add, a lookup of a
 * new key, a lookup of a kept one and a sweep take, with the longest single add (a table's
 * growth). Run alone: `npx tsx test/bench/measureKeyTable.ts [keys]`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { buffersOf, IdempotencyKeys } from '../../storage/IdempotencyKeys.js';

const count = Number(process.argv[2] ?? 100_000);
const scope = 'a'.repeat(64);
const start = Date.UTC(2026, 11, 2);
const DAY = 86_400_000;

/** A text as a header gives it: flat, not the rope `randomUUID` or a template makes. */
const flat = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/** Key texts of each shape a client sends. */
const shapes: Record<string, (index: number) => string> = {
  uuid: () => randomUUID(),
  'token (22 base64url)': () => randomBytes(16).toString('base64url'),
  'hex (32 digits)': () => randomBytes(16).toString('hex'),
  'counter (two clients)': (index) => (index % 2 === 0 ? `k-1796223970-987654321-${index >> 1}` : `k-1796223970-12345-${index >> 1}`),
};

const microseconds = (from: number, to: number) => (((to - from) * 1000) / count).toFixed(2);

for (const [shape, make] of Object.entries(shapes)) {
  const texts = Array.from({ length: count }, (_, index) => flat(make(index)));
  const others = Array.from({ length: count }, (_, index) => flat(make(index + count)));
  const fingerprints = Array.from({ length: count }, () => randomBytes(8).toString('base64url'));
  const keys = new IdempotencyKeys();
  let longestAdd = 0;
  const added = performance.now();
  for (let index = 0; index < count; index++) {
    const before = performance.now();
    keys.add({
      scope,
      key: texts[index]!,
      fingerprint: fingerprints[index]!,
      petId: index + 1,
      createdAt: start + index,
      expiresAt: start + index + DAY,
    });
    longestAdd = Math.max(longestAdd, performance.now() - before);
  }
  const missed = performance.now();
  let found = 0;
  /** A lookup as a create makes it: the key, with this request's digest and times. */
  const asked = (key: string) => ({ scope, key, fingerprint: 'AAAAAAAAAAA', createdAt: start + count, expiresAt: start + count + DAY });
  for (const key of others) if (keys.find(asked(key))) found++;
  const hit = performance.now();
  for (const key of texts) if (keys.find(asked(key))) found++;
  const swept = performance.now();
  const snapshot = keys.snapshot();
  const bytes = buffersOf(snapshot).reduce((total, buffer) => total + buffer.byteLength, 0);
  const table = snapshot.table.byteLength;
  const sweepFrom = performance.now();
  keys.sweep(start + count + DAY, count);
  const sweepTo = performance.now();
  if (found !== count) throw new Error(`found ${found} of ${count} kept keys (and no new one): the queue is broken`);
  console.log(
    `${shape}: ${(bytes / count).toFixed(1)} B a key (table ${(table / count).toFixed(1)}), ` +
      `add ${microseconds(added, missed)} µs (longest ${longestAdd.toFixed(1)} ms), ` +
      `new key ${microseconds(missed, hit)} µs, kept key ${microseconds(hit, swept)} µs, sweep ${microseconds(sweepFrom, sweepTo)} µs`,
  );
}
