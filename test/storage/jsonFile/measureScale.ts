/**
 * @module Measures the JSON-file storage at scale: open time and peak memory, the cost of a
 * create and of a filtered page, at 1k, 100k and 1M animals. Not a test (timings belong to
 * measurements, not assertions): run `npx tsx test/storage/measure-scale.ts [sizes…]`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pet } from '../../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../../core/schemas/PetStatus.js';
import { checkPetFile } from '../../../storage/jsonFile/format/checkPetFile.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { PetIndex } from '../../../storage/PetIndex.js';

/** Writes a data file of `size` animals with names of a realistic length. */
const writeCatalogue = (file: string, size: number) => {
  const pets: Pet[] = Array.from({ length: size }, (_, offset) => ({
    id: offset + 1,
    name: `Animal number ${offset + 1}`,
    categoryId: 1 + (offset % 50),
    status: PET_STATUSES[offset % 3]!,
  }));
  fs.writeFileSync(file, Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: size + 1, pets, idempotencyKeys: [] })));
};

const millisecondsOf = async (work: () => Promise<unknown>) => {
  const start = performance.now();
  await work();
  return performance.now() - start;
};

/** Where open's time goes: the same steps openJsonFileStorage takes, timed one by one. */
const measurePhases = (file: string) => {
  const times: Record<string, number> = {};
  let start = performance.now();
  const lap = (name: string) => {
    times[name] = Math.round(performance.now() - start);
    start = performance.now();
  };
  const text = fs.readFileSync(file, 'utf8');
  lap('readMs');
  const value: unknown = JSON.parse(text);
  lap('parseMs');
  const checked = checkPetFile(value);
  lap('validateMs');
  if (!('data' in checked)) throw new Error('The generated file is not valid.');
  new PetIndex(checked.data.pets);
  lap('indexMs');
  console.log(JSON.stringify(times));
};

/** Runs in a fresh process per size, so open's memory is measured from a clean start. */
const measureOne = async (file: string, size: number) => {
  let storage!: Awaited<ReturnType<typeof openJsonFileStorage>>;
  const openMs = await millisecondsOf(async () => (storage = await openJsonFileStorage({ file })));
  const peakRssAtOpenMb = process.resourceUsage().maxRSS / 1024;
  // Right after open, the unchanged part of the file is still being serialised in the background.
  const createRightAfterOpenMs = await millisecondsOf(() => storage.create({ name: 'First', categoryId: 1, status: 'sold' }));
  await new Promise((resolve) => setTimeout(resolve, 3_000));
  const createMs: number[] = [];
  for (let round = 0; round < 5; round++) {
    createMs.push(await millisecondsOf(() => storage.create({ name: 'Next', categoryId: 1, status: 'sold' })));
  }
  const batchOf100Ms = await millisecondsOf(() =>
    Promise.all(Array.from({ length: 100 }, () => storage.create({ name: 'Batch', categoryId: 2, status: 'pending' }))),
  );
  const pages = 10_000;
  const listMs = await millisecondsOf(async () => {
    for (let page = 0; page < pages; page++) await storage.list({ after: (page * 7919) % size, limit: 21, status: 'sold' });
  });
  await storage.close();
  console.log(
    JSON.stringify({
      openMs: Math.round(openMs),
      peakRssAtOpenMb: Math.round(peakRssAtOpenMb),
      createRightAfterOpenMs: Math.round(createRightAfterOpenMs),
      createMsMedian: Math.round(createMs.sort((a, b) => a - b)[2]!),
      batchOf100Ms: Math.round(batchOf100Ms),
      listSoldPageMicroseconds: Math.round((listMs / pages) * 1000 * 10) / 10,
      peakRssOverallMb: Math.round(process.resourceUsage().maxRSS / 1024),
      fileMb: Math.round(fs.statSync(file).size / 1e5) / 10,
    }),
  );
};

const main = async () => {
  const [flag, file, size] = process.argv.slice(2);
  if (flag === '--child' && file) return measureOne(file, Number(size));
  if (flag === '--phases' && file) return measurePhases(file);
  const sizes = process.argv.slice(2).map(Number);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-scale-'));
  try {
    for (const size of sizes.length > 0 ? sizes : [1_000, 100_000, 1_000_000]) {
      const file = path.join(folder, `animals-${size}.json`);
      writeCatalogue(file, size);
      const run = (...args: string[]) =>
        execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), ...args], { encoding: 'utf8' }).trim();
      console.log(`${size} animals, open phases: ${run('--phases', file)}`);
      console.log(`${size} animals: ${run('--child', file, String(size))}`);
    }
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
};

await main();
