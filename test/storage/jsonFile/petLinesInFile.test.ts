import fs from 'node:fs';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { Scratch } from '../../../storage/durableFile/index.js';
import { checksumOf } from '../../../storage/durableFile/JournalChanges.js';
import { encodePetChange } from '../../../storage/jsonFile/format/PetChange.js';
import { type PetFileData, petJson } from '../../../storage/jsonFile/format/PetFileData.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { parsePetFile } from '../../../storage/jsonFile/read/parsePetFile.js';
import { findPetLines } from '../../../storage/jsonFile/write/findPetLines.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { tempDataFile } from '../../support/tempFolder.js';

const CHUNK = 4096;

const animals = (from: number, count: number): Pet[] =>
  Array.from({ length: count }, (_, offset) => ({
    id: from + offset,
    // Names of many lengths with a quote and characters beyond ASCII; a few hold the layout's own separators.
    name: `Animal ${from + offset}${offset % 1000 === 7 ? ' },{ ' : ' '}"quoted" é ${'x'.repeat(offset % 40)}`,
    categoryId: 1 + (offset % 5),
    status: 'available',
  }));

/** The list's bytes between its brackets, laid out as `join` lays out the animals' JSON. */
const listOf = (pets: readonly Pet[], join: (lines: string[]) => string) => Buffer.from(join(pets.map(petJson)));

/** The serialiser's layout: a line break after the `[`, an animal a line, a line break before the `]`. */
const aLine = (lines: string[]) => `\n${lines.join(',\n')}\n`;

/** Reads from a file holding the list (the bytes between its brackets) as `readOwnBytes` reads from the data file; counts the reads. */
const reading = (list: Buffer) => {
  const bytes = Buffer.concat([Buffer.from('['), list, Buffer.from(']')]);
  const read = { bytes: 0, calls: 0 };
  const readOwnBytes = async (offset: number, length: number) => {
    read.bytes += length;
    read.calls++;
    return offset + length <= bytes.byteLength ? Buffer.from(bytes.subarray(offset, offset + length)) : undefined;
  };
  return { read, readOwnBytes };
};

const find = async (list: Buffer, count: number, animalsWanted: number, stopped = () => false) => {
  const scratch = new Scratch();
  try {
    return await findPetLines(reading(list).readOwnBytes, { offset: 1, length: list.byteLength, count }, animalsWanted, stopped, scratch);
  } finally {
    scratch.free();
  }
};

/** What the serialiser writes for the first `count` animals: their chunks' bytes. */
const linesOfFirst = (pets: readonly Pet[], count: number) => Buffer.byteLength(`\n${pets.slice(0, count).map(petJson).join(',\n')}`);

describe('Finding the animals of a data file laid out an animal a line', () => {
  it('Should give the bytes of the first chunks, read a megabyte at a time, in a list of several megabytes', async () => {
    const pets = animals(1, 40_000);
    const list = listOf(pets, aLine);
    expect(list.byteLength).toBeGreaterThan(3 * 1024 * 1024);
    const { read, readOwnBytes } = reading(list);
    const scratch = new Scratch();
    const found = await findPetLines(
      readOwnBytes,
      { offset: 1, length: list.byteLength, count: pets.length },
      9 * CHUNK,
      () => false,
      scratch,
    );
    scratch.free();
    expect(found).toBe(linesOfFirst(pets, 9 * CHUNK));
    expect(read.calls).toBe(Math.ceil(list.byteLength / (1024 * 1024)));
    // Every animal, the last line included.
    expect(await find(list, pets.length, pets.length)).toBe(linesOfFirst(pets, pets.length));
  });

  it('Should find nothing in any other layout, or where the lines are not as many as the animals', async () => {
    const pets = animals(1, 9_000);
    const lines = pets.map(petJson);
    const otherLayouts = [
      `[${lines.join(',')}]`.slice(1, -1),
      JSON.stringify(pets, null, 2).slice(1, -1),
      `\n${lines.join(',\r\n')}\n`,
      `\n${lines.join(', \n')}\n`,
      `\n  ${lines.join(',\n  ')}\n`,
      `${lines.join(',\n')}\n`,
      `\n${lines.join(',\n')}`,
      `\n${lines.join(',\n')} `,
      // Two animals on one line: one line fewer than animals.
      `\n${lines.slice(0, 2).join(',')},\n${lines.slice(2).join(',\n')}\n`,
      // One animal over two lines.
      `\n${lines[0]!.replace(',"categoryId"', ',\n"categoryId"')},\n${lines.slice(1).join(',\n')}\n`,
    ];
    for (const layout of otherLayouts) {
      expect(() => JSON.parse(`[${layout}]`)).not.toThrow();
      expect(await find(Buffer.from(layout), pets.length, 2 * CHUNK)).toBeUndefined();
    }
    const list = listOf(pets, aLine);
    expect(await find(list, pets.length + 1, 2 * CHUNK)).toBeUndefined();
    expect(await find(list, pets.length - 1, 2 * CHUNK)).toBeUndefined();
    expect(await find(list, pets.length, 2 * CHUNK, () => true)).toBeUndefined();
    const scratch = new Scratch();
    const unreadable = async () => undefined;
    expect(
      await findPetLines(unreadable, { offset: 1, length: list.byteLength, count: pets.length }, CHUNK, () => false, scratch),
    ).toBeUndefined();
    scratch.free();
  });

  it('Should find the line breaks that fall at the edges of the megabytes it reads', async () => {
    const piece = 1024 * 1024;
    for (let shift = -3; shift <= 3; shift++) {
      // A first line long enough that the second line's break falls at `piece + shift` (lines are checked as bytes, not as animals).
      const first = `{"id":1,"name":"${'x'.repeat(piece + shift - 2 - '{"id":1,"name":""}'.length)}"}`;
      const lines = [first, ...animals(2, 20).map(petJson)];
      const list = Buffer.from(aLine(lines));
      expect(list.indexOf('\n', 1)).toBe(piece + shift);
      for (const count of [1, 2, 21]) expect(await find(list, 21, count)).toBe(Buffer.byteLength(`\n${lines.slice(0, count).join(',\n')}`));
      const broken = Buffer.from(list);
      broken[piece + shift - 1] = 0x20;
      expect(await find(broken, 21, 21)).toBeUndefined();
    }
  });

  it('Should give, for any animals and any count of them, exactly the bytes the serialiser makes of that many', async () => {
    const pet = fc.record({
      id: fc.integer({ min: 1, max: 1_000_000 }),
      name: fc.string({ minLength: 1, maxLength: 30, unit: 'grapheme' }),
      categoryId: fc.integer({ min: 1, max: 100 }),
      status: fc.constantFrom('available', 'pending', 'sold'),
    }) as fc.Arbitrary<Pet>;
    await fc.assert(
      fc.asyncProperty(fc.array(pet, { minLength: 1, maxLength: 60 }), fc.nat(), async (pets, at) => {
        const count = 1 + (at % pets.length);
        expect(await find(listOf(pets, aLine), pets.length, count)).toBe(linesOfFirst(pets, count));
      }),
    );
  });
});

afterEach(() => {
  vi.restoreAllMocks();
});

/** A data file of `pets` (and `nextId`), written by the serialiser, or laid out by `layout`. */
const writeFile = (file: string, pets: Pet[], layout?: (data: PetFileData) => string) => {
  const data: PetFileData = { format: 2, nextId: Math.max(...pets.map(({ id }) => id)) + 1, pets, idempotencyKeys: [] };
  fs.writeFileSync(file, layout ? layout(data) : Buffer.concat(new PetFileSerializer().serialize(data)));
  // Large enough to be read a range at a time, as large files are.
  expect(fs.statSync(file).size).toBeGreaterThan(1024 * 1024);
};

/** Opens `file`, waits for the preparation after the start, adds one animal and stops (a whole write); answers what the serialiser encoded. */
const encodedByAStartAndAStop = async (file: string) => {
  const prepare = vi.spyOn(PetFileSerializer.prototype, 'prepare');
  const storage = await openJsonFileStorage({ file });
  expect(prepare).toHaveBeenCalled();
  await prepare.mock.results[0]!.value;
  const serializer = prepare.mock.contexts[0] as PetFileSerializer;
  await storage.create({ name: 'After the start', categoryId: 1, status: 'sold' });
  await storage.close();
  return serializer.encodedBytes;
};

/** The serialiser encoded the animals of `pets` from `from` on and the one added after the start (a line of under 1,000 bytes), and no more. */
const expectEncodedFrom = (encoded: number, pets: Pet[], from: number) => {
  const animalsFrom = Buffer.byteLength(
    pets
      .slice(from)
      .map((pet) => `,\n${petJson(pet)}`)
      .join(''),
  );
  // The first animal's line starts with a line break alone: one byte less.
  expect(encoded).toBeGreaterThanOrEqual(animalsFrom - 1);
  expect(encoded).toBeLessThan(animalsFrom + 1_000);
};

/** The file is one document, written as a fresh serialiser writes what it holds, with `pets` and one more. */
const expectWholeWith = (file: string, pets: Pet[]) => {
  const text = fs.readFileSync(file, 'utf8');
  const data = parsePetFile(text, file);
  expect(Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8')).toBe(text);
  expect(data.pets.slice(0, pets.length)).toEqual(pets);
  expect(data.pets.at(-1)).toMatchObject({ name: 'After the start' });
};

describe('The first whole write after a start copies the animals of a file laid out an animal a line', () => {
  it('Should copy the full chunks the file holds, and encode only the animals after them', { timeout: 30_000 }, async () => {
    const file = tempDataFile();
    const pets = animals(1, 20_000);
    writeFile(file, pets);
    // The animals after the last full chunk (20,000 - 4 × 4,096 = 3,616) and the new one, not the 16,384 before.
    expectEncodedFrom(await encodedByAStartAndAStop(file), pets, 4 * CHUNK);
    expectWholeWith(file, pets);
  });

  it('Should encode every animal of a file laid out otherwise, and write it an animal a line', { timeout: 30_000 }, async () => {
    const file = tempDataFile();
    const pets = animals(1, 20_000);
    writeFile(file, pets, (data) => JSON.stringify(data));
    expectEncodedFrom(await encodedByAStartAndAStop(file), pets, 0);
    expectWholeWith(file, pets);
  });

  it("Should copy the file's animals after a crash, and encode the journal's", { timeout: 30_000 }, async () => {
    const file = tempDataFile();
    const pets = animals(1, 15_000);
    writeFile(file, pets.slice(0, 12_000));
    const change = encodePetChange({ nextId: 15_001, pets: pets.slice(12_000), keys: [] });
    fs.writeFileSync(`${file}.journal`, `${checksumOf(change)} ${change}\n`);
    // Two full chunks are the file's (8,192 animals); the journal's 12,000 to 15,000 follow a third chunk's start.
    expectEncodedFrom(await encodedByAStartAndAStop(file), pets, 2 * CHUNK);
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
    expectWholeWith(file, pets);
  });

  it("Should encode every animal when the journal's animals were sorted in among the file's", { timeout: 30_000 }, async () => {
    const file = tempDataFile();
    const pets = animals(1, 12_000);
    // The file lacks animals 5,001 to 5,100, which a journal line holds (as after an edit that took their ids).
    writeFile(file, [...pets.slice(0, 5_000), ...pets.slice(5_100)]);
    const change = encodePetChange({ nextId: 12_001, pets: pets.slice(5_000, 5_100), keys: [] });
    fs.writeFileSync(`${file}.journal`, `${checksumOf(change)} ${change}\n`);
    expectEncodedFrom(await encodedByAStartAndAStop(file), pets, 0);
    expectWholeWith(file, pets);
  });
});
