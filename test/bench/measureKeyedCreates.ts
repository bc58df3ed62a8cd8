/**
 * @module Keyed against plain creates on a JSON data file holding many live Idempotency-Keys:
 * throughput of each, in turns, and the longest the event loop stalled meanwhile (what a read
 * would have waited). Not a test, since timings are measurements: run
 * `npx tsx test/bench/measureKeyedCreates.ts [liveKeys=100000] [seconds=5] [clients=64]`.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { PetStorage } from '../../core/PetStorage.js';
import { appendEntries, toPetFileContent } from '../../storage/jsonFile/format/PetFileContent.js';
import { openJsonFileStorage } from '../../storage/jsonFile/openJsonFileStorage.js';
import { PetFileSerializer } from '../../storage/jsonFile/write/PetFileSerializer.js';

const [liveKeys = 100_000, seconds = 5, clients = 64] = process.argv.slice(2).map(Number);
const SCOPE = 'c0ffee'.repeat(10).slice(0, 64);
const DAY = 86_400_000;
const keyNow = () => {
  const createdAt = Date.now();
  return { scope: SCOPE, key: randomUUID(), fingerprint: 'Qk9vVWJ6cE1hR0Z5ZFdWd1lXeHZZV1E', createdAt, expiresAt: createdAt + DAY };
};
const newPet = (at: number) => ({ name: `Animal number ${at}`, categoryId: 1 + (at % 50), status: 'available' as const });

/** A data file of `count` animals, each created with a key that is live for a day. */
const writeFile = (file: string, count: number) => {
  const content = toPetFileContent({ format: 2, nextId: 1, pets: [], idempotencyKeys: [] });
  appendEntries(
    content,
    Array.from({ length: count }, (_, at) => ({ newPet: newPet(at), key: keyNow() })),
  );
  fs.writeFileSync(
    file,
    Buffer.concat(
      new PetFileSerializer().serialize({ ...content, pets: content.pets.slice(), idempotencyKeys: [...content.idempotencyKeys.values()] }),
    ),
  );
};

/** Creates per second by `clients` loops for `seconds`, and the event loop's longest stall. */
const run = async (storage: PetStorage, keyed: boolean) => {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  const until = performance.now() + seconds * 1000;
  let created = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        if (keyed) await storage.createIdempotent(newPet(created), keyNow());
        else await storage.create(newPet(created));
        created++;
      }
    }),
  );
  delay.disable();
  return { perSecond: Math.round(created / seconds), maxStallMs: Math.round(delay.max / 1e6), created };
};

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'keyed-creates-'));
const file = path.join(folder, 'animals.json');
try {
  writeFile(file, liveKeys);
  console.log(
    `file: ${liveKeys} animals and live keys, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB; ${clients} clients, ${seconds} s a turn`,
  );
  const storage = await openJsonFileStorage({ file });
  // Let the background preparation of cached bytes finish, as a server's quiet start does.
  await new Promise((resolve) => setTimeout(resolve, 2_000));
  const turns: Record<'plain' | 'keyed', number[]> = { plain: [], keyed: [] };
  for (const kind of ['plain', 'keyed', 'plain', 'keyed'] as const) {
    const result = await run(storage, kind === 'keyed');
    turns[kind].push(result.perSecond);
    console.log(`${kind}: ${result.perSecond}/s, longest event-loop stall ${result.maxStallMs} ms`);
  }
  await storage.close();
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  console.log(`keyed/plain: ${(mean(turns.keyed) / mean(turns.plain)).toFixed(2)}`);
} finally {
  fs.rmSync(folder, { recursive: true, force: true });
}
