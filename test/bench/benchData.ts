/** @module The animals every contender of the benchmark serves, written once per size. */

import { once } from 'node:events';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The statuses, in the order they repeat through the catalogue. */
export const BENCH_STATUSES = ['available', 'pending', 'sold'] as const;

/** One bench animal, in the shape of the interface. */
export interface BenchPet {
  id: number;
  name: string;
  categoryId: number;
  status: (typeof BENCH_STATUSES)[number];
}

/** Where the files of one catalogue size are. */
export interface BenchDataFiles {
  animals: number;
  /** Our JSON-file storage's format: `{"format":1,"nextId":N+1,"pets":[…]}`. */
  petFile: string;
  /** json-server's database: `{"pets":[…]}`. */
  jsonServerFile: string;
  /** A json-server source that keeps the same animals in memory only (a `.js` database). */
  jsonServerMemoryModule: string;
}

const NAMES = ['Rex', 'Luna', 'Milo', 'Bella', 'Coco', 'Max', 'Nala', 'Otto', 'Pip', 'Kiwi', 'Tiger', 'Daisy'];

/**
 * The animal with a given id: the same id always gives the same animal, so every contender
 * and every size agree. Statuses repeat available, pending, sold, so a third of any range is
 * sold and a status-filtered page is never starved.
 */
export const benchPet = (id: number): BenchPet => ({
  id,
  name: `${NAMES[id % NAMES.length]} ${id}`,
  categoryId: 1 + ((Math.imul(id, 2654435761) >>> 0) % 12),
  status: BENCH_STATUSES[id % 3]!,
});

/** Streams `{"head"…"pets":[ animals ]}` to a file without building one giant string. */
const writePetsDocument = async (file: string, head: string, animals: number): Promise<void> => {
  const stream = createWriteStream(file);
  const chunk: string[] = [];
  const flush = async () => {
    if (!stream.write(chunk.join(''))) await once(stream, 'drain');
    chunk.length = 0;
  };
  chunk.push(head, '"pets":[');
  for (let id = 1; id <= animals; id++) {
    chunk.push(id === 1 ? '' : ',', JSON.stringify(benchPet(id)));
    if (chunk.length >= 20_000) await flush();
  }
  chunk.push(']}\n');
  await flush();
  stream.end();
  await once(stream, 'close');
};

/** Writes the data files for a catalogue of `animals` into `directory` (made if missing). */
export const writeBenchData = async (directory: string, animals: number): Promise<BenchDataFiles> => {
  await mkdir(directory, { recursive: true });
  const petFile = join(directory, `animals-${animals}.json`);
  const jsonServerFile = join(directory, `json-server-${animals}.json`);
  const jsonServerMemoryModule = join(directory, `json-server-memory-${animals}.cjs`);
  await writePetsDocument(petFile, `{"format":1,"nextId":${animals + 1},`, animals);
  await writePetsDocument(jsonServerFile, '{', animals);
  // json-server keeps a `.js` database in memory (lowdb's Memory adapter): no file writes.
  await writeFile(
    jsonServerMemoryModule,
    `const { readFileSync } = require('node:fs');\nmodule.exports = () => JSON.parse(readFileSync(${JSON.stringify(jsonServerFile)}, 'utf8'));\n`,
  );
  return { animals, petFile, jsonServerFile, jsonServerMemoryModule };
};
