import { createHash } from 'node:crypto';
import fs from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import {
  DataFileError,
  type FileReading,
  type JournalChanges,
  journalPath,
  NO_CHANGES,
  nodeFileSystem,
} from '../../../storage/durableFile/index.js';
import { Journal } from '../../../storage/durableFile/Journal.js';
import { IdempotencyKeys } from '../../../storage/IdempotencyKeys.js';
import { encodePetChange, replayPetChanges } from '../../../storage/jsonFile/format/PetChange.js';
import { type PetFileContent, toPetFileContent } from '../../../storage/jsonFile/format/PetFileContent.js';
import type { PetFileData } from '../../../storage/jsonFile/format/PetFileData.js';
import { parsePetFile } from '../../../storage/jsonFile/read/parsePetFile.js';
import { readKeysInWorker } from '../../../storage/jsonFile/read/readKeysInWorker.js';
import { readPetFileContent } from '../../../storage/jsonFile/read/readPetFileContent.js';
import { streamPetFile } from '../../../storage/jsonFile/read/streamPetFile.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { keyToFile } from './keyToFile.js';

const SCOPE = 'c0ffee'.repeat(11).slice(0, 64);
const NOW = Date.parse('2026-11-28T10:00:00Z');

/** A data file's data: `keys` keys (over a megabyte of them from about 4,000), as the service stores them. */
const dataWith = (pets: number, keys: number, sync?: PetFileData['sync']): PetFileData => {
  const data: PetFileData = {
    format: 2,
    nextId: pets + 1,
    pets: Array.from(
      { length: pets },
      (_, at): Pet => ({ id: at + 1, name: `Animal ${at + 1}`, categoryId: 1 + (at % 7), status: 'available' }),
    ),
    idempotencyKeys: Array.from(
      { length: keys },
      (_, at): StoredIdempotencyKey => ({
        scope: at % 3 === 0 ? SCOPE : 'ab'.repeat(32),
        key: at % 5 === 0 ? `order ${at}` : `5f1c2a9e-0b7d-4c1e-9a2b-${at.toString(16).padStart(12, '0')}`,
        fingerprint: createHash('sha256').update(`payload ${at}`).digest().subarray(0, 8).toString('base64url'),
        petId: (at % pets) + 1,
        createdAt: NOW + at,
        expiresAt: NOW + at + 86_400_000,
      }),
    ),
  };
  if (sync) data.sync = sync;
  return data;
};

const textOf = (data: PetFileData) => Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8');

/** What a content holds, as plain data, to compare with `parsePetFile`'s. */
const plain = (content: Omit<PetFileContent, 'pets'> & { pets: Iterable<Pet> }) => ({
  nextId: content.nextId,
  pets: [...content.pets],
  idempotencyKeys: [...content.idempotencyKeys.values()],
  sync: content.sync,
});

/** A file's text as a storage reads it: whole, or a range at a time. */
const readingOf = (text: string): FileReading => {
  const bytes = Buffer.from(text);
  return {
    size: bytes.byteLength,
    text: async () => text,
    bytes: async (position, length, into) => {
      const end = Math.min(bytes.byteLength, position + length);
      const target = into && into.byteLength >= length ? into : Buffer.alloc(length);
      const count = bytes.copy(target, 0, Math.min(position, end), end);
      return target.subarray(0, count);
    },
  };
};

/** The keys' list of a file's text as the server writes it, from its `[` to its `]`, in bytes. */
const keysPartOf = (text: string) =>
  Buffer.from(text.slice(text.indexOf('"idempotencyKeys":[') + '"idempotencyKeys":'.length, text.lastIndexOf(']') + 1));

/** Where the server's serialiser put the keys' lines: from the line break after the list's `[` to the one before its `]`. */
const keyLinesOf = (text: string, keys: number) => {
  const opening = text.indexOf('"idempotencyKeys":[\n') + '"idempotencyKeys":['.length;
  const offset = Buffer.byteLength(text.slice(0, opening));
  return { offset, length: Buffer.byteLength(text.slice(opening, text.lastIndexOf('\n]'))), end: keys };
};

/** The error `run` throws. */
const thrown = async (run: () => unknown) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  throw new Error('it did not throw');
};

describe('Reading a large data file a range at a time, its keys in a worker thread', () => {
  it('Should build the queue of a keys part in a worker thread, found by scope and key as in this one', async () => {
    const data = dataWith(10, 5_000);
    const { idempotencyKeys } = data;
    const part = await readKeysInWorker(Promise.resolve(keysPartOf(textOf(data))));
    const queue = IdempotencyKeys.fromSnapshot(part!.snapshot);
    expect(queue.size).toBe(5_000);
    expect([...queue.values()]).toEqual(idempotencyKeys);
    const wanted = idempotencyKeys[4_321]!;
    expect(queue.find({ ...wanted, fingerprint: '', createdAt: NOW + 5_000 })).toEqual(wanted);
    expect(queue.find({ ...wanted, scope: 'ff'.repeat(32), fingerprint: '', createdAt: NOW + 5_000 })).toBeUndefined();
    // From the line break after its `[` to the one before its `]`.
    expect(part!.lines).toEqual({ start: 1, length: keysPartOf(textOf(data)).byteLength - 3 });
    // Not a list of valid keys, or not laid out as the server writes it: nothing, and the caller reads the file itself.
    const bad = dataWith(10, 5_000);
    bad.idempotencyKeys[17] = { ...bad.idempotencyKeys[17]!, petId: 0 };
    expect(await readKeysInWorker(Promise.resolve(keysPartOf(textOf(bad))))).toBeUndefined();
    expect(await readKeysInWorker(Promise.resolve(Buffer.from('[{"scope":')))).toBeUndefined();
    const compact = JSON.stringify(idempotencyKeys.map(keyToFile));
    expect(await readKeysInWorker(Promise.resolve(Buffer.from(`${compact.slice(0, -1)},{"extra":1}]`)))).toBeUndefined();
    expect(await readKeysInWorker(Promise.resolve(Buffer.from(`${compact}}`)))).toBeUndefined();
    // Spaced otherwise, the same queue; no key lines to copy, as the list is not a key a line.
    const spacedOtherwise = await readKeysInWorker(Promise.resolve(Buffer.from(compact)));
    expect([...IdempotencyKeys.fromSnapshot(spacedOtherwise!.snapshot).values()]).toEqual(idempotencyKeys);
    expect(spacedOtherwise!.lines).toBeUndefined();
    // Bytes that could not be read (short, or an error): nothing, and never a rejection.
    expect(await readKeysInWorker(Promise.resolve(undefined))).toBeUndefined();
    expect(await readKeysInWorker(Promise.reject(new Error('EIO: i/o error, read')))).toBeUndefined();
  });

  it('Should read a file the server wrote, with or without its sync part or keys, as parsePetFile does', async () => {
    const sync = { leases: [{ scope: SCOPE, first: 1_000_001, last: 1_001_000 }] } as PetFileData['sync'];
    // Many keys (a worker), few keys (this thread), no keys; a sync part or none.
    for (const data of [dataWith(3_000, 6_000), dataWith(3_000, 6_000, sync), dataWith(14_000, 500), dataWith(16_000, 0, sync)]) {
      const text = textOf(data);
      expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
      const streamed = await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json');
      expect(streamed).toBeDefined();
      const { content, keyLines } = await readPetFileContent(readingOf(text), 'animals.json', NO_CHANGES);
      const parsed = parsePetFile(text, 'animals.json');
      expect(plain(content)).toEqual(plain({ ...parsed, idempotencyKeys: content.idempotencyKeys }));
      expect([...content.idempotencyKeys.values()]).toEqual(parsed.idempotencyKeys);
      expect(plain(streamed!.content)).toEqual(plain(content));
      // Where the keys' lines are, for the first whole write to copy them: as the serialiser put them.
      expect(keyLines).toEqual(data.idempotencyKeys.length === 0 ? undefined : keyLinesOf(text, data.idempotencyKeys.length));
    }
  });

  it('Should say where the keys lie in a small file read whole, as in a large one read a range at a time', async () => {
    const text = textOf(dataWith(100, 300));
    expect(Buffer.byteLength(text)).toBeLessThan(1024 * 1024);
    const { content, keyLines } = await readPetFileContent(readingOf(text), 'animals.json', NO_CHANGES);
    expect(content.idempotencyKeys.size).toBe(300);
    expect(keyLines).toEqual(keyLinesOf(text, 300));
  });

  // A worker a damaged file, two dozen of them, each loading its modules through tsx: over 15 s on a busy host.
  it('Should name the first problem of a damaged large file as parsePetFile does', { timeout: 60_000 }, async () => {
    const withKeys = textOf(dataWith(3_000, 6_000));
    const badKey = withKeys.replace(
      `"petId":${(4_000 % 3_000) + 1},"createdAt":"${new Date(NOW + 4_000).toISOString()}"`,
      '"petId":0,"createdAt":"x"',
    );
    // Without keys, so no worker thread: the animals are what is damaged.
    const text = textOf(dataWith(16_000, 0));
    const badPet = text.replace('"name":"Animal 2000"', '"name":""');
    const repeated = text.replace('{"id":7,', '{"id":6,');
    const strayField = withKeys.replace(/\]\}\n$/, '],"extra":1}\n');
    const noEnd = text.replace(/\]\}\n$/, ']');
    // Broken where the animals are read a piece at a time: a comma too many, before the list's end or between two lines.
    const trailingComma = text.replace('"status":"available"}\n],"idempotencyKeys"', '"status":"available"},\n],"idempotencyKeys"');
    const doubleComma = text.replace('{"id":2500,', ',\n{"id":2500,');
    const leadingComma = text.replace('"pets":[\n', '"pets":[,\n');
    // …and before a list of animals shorter than a piece: its first piece is then empty.
    const fewPets = textOf(dataWith(10, 5_000));
    const leadingCommaFewPets = fewPets.replace('"pets":[\n', '"pets":[,\n');
    // The same where the keys are read a piece at a time (in a worker thread), the doubled comma pieces after the first.
    const laterKeyLine =
      withKeys.lastIndexOf('\n', withKeys.indexOf(`"key":"5f1c2a9e-0b7d-4c1e-9a2b-${(4_001).toString(16).padStart(12, '0')}"`)) + 1;
    const keysTrailingComma = withKeys.replace(/\}\n\]\}\n$/, '},\n]}\n');
    const keysDoubleComma = `${withKeys.slice(0, laterKeyLine)},\n${withKeys.slice(laterKeyLine)}`;
    const keysLeadingComma = withKeys.replace('"idempotencyKeys":[\n', '"idempotencyKeys":[,\n');
    const damagedFiles = [badKey, badPet, repeated, strayField, noEnd, trailingComma, doubleComma, leadingComma, leadingCommaFewPets];
    for (const damaged of [...damagedFiles, keysTrailingComma, keysDoubleComma, keysLeadingComma]) {
      expect([text, withKeys, fewPets]).not.toContain(damaged);
      const expected = (await thrown(() => parsePetFile(damaged, 'animals.json'))) as DataFileError;
      expect(expected).toBeInstanceOf(DataFileError);
      expect(await streamPetFile(readingOf(damaged), NO_CHANGES, 'animals.json')).toBeUndefined();
      const error = await thrown(() => readPetFileContent(readingOf(damaged), 'animals.json', NO_CHANGES));
      expect(error).toBeInstanceOf(DataFileError);
      expect((error as Error).message).toBe(expected.message);
    }
  });

  const sync = { leases: [{ scope: SCOPE, first: 1_000_001, last: 1_001_000 }] } as PetFileData['sync'];
  it.each([
    ['keys', () => dataWith(2_000, 5_000)],
    ['keys and a sync part', () => dataWith(2_000, 5_000, sync)],
    ['no keys', () => dataWith(16_000, 0)],
  ])(
    'Should read a large file with %s spaced otherwise (by JSON.stringify, by hand) a range at a time, to the same content',
    async (_, make) => {
      const data = make();
      const inFile = { ...data, idempotencyKeys: data.idempotencyKeys.map(keyToFile) };
      const layouts = {
        compact: JSON.stringify(inFile),
        indented: `${JSON.stringify(inFile, null, 2)}\n`,
        tabs: JSON.stringify(inFile, null, '\t'),
        crlf: JSON.stringify(inFile, null, 1).replaceAll('\n', '\r\n'),
        byteOrderMark: `\uFEFF${JSON.stringify(inFile)}`,
        animalOverTwoLines: textOf(data).replace('{"id":1500,"name":"Animal 1500",', '{"id":1500,\n"name":"Animal 1500",'),
      };
      for (const [layout, text] of Object.entries(layouts)) {
        expect(text, layout).not.toBe(textOf(data));
        expect(Buffer.byteLength(text)).toBeGreaterThan(1024 * 1024);
        const streamed = await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json');
        expect(streamed, layout).toBeDefined();
        expect(plain(streamed!.content)).toEqual(plain({ ...data, idempotencyKeys: streamed!.content.idempotencyKeys }));
        expect([...streamed!.content.idempotencyKeys.values()]).toEqual(data.idempotencyKeys);
        // Lines of keys are found only where the list is laid out a key a line, as the serialiser writes it.
        expect(streamed!.keyLines, layout).toEqual(
          layout === 'animalOverTwoLines' && data.idempotencyKeys.length > 0 ? keyLinesOf(text, data.idempotencyKeys.length) : undefined,
        );
      }
    },
  );

  it("Should read animals over many chunks, each chunk's cut-off item put before the next one's bytes, as parsePetFile does", async () => {
    const data = dataWith(70_000, 100);
    // Names of many lengths, with multi-byte characters (and some an item's end), so chunks end anywhere in an item.
    data.pets = data.pets.map((pet, at) => ({ ...pet, name: `${'Zoë 🐕 '.repeat(at % 31)}${at % 50 === 0 ? '},' : ''}${pet.name}` }));
    const text = textOf(data);
    expect(Buffer.byteLength(text)).toBeGreaterThan(8 * 1024 * 1024);
    const streamed = await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json');
    expect(streamed).toBeDefined();
    expect(plain(streamed!.content)).toEqual(plain(toPetFileContent(parsePetFile(text, 'animals.json'))));
  });

  it('Should give a file with a damaged animal up, and fail on a read error, with no read of it left running', async () => {
    const data = dataWith(40_000, 100);
    const text = textOf(data);
    const damaged = text.replace('{"id":20000,', '{"id":20000,,');
    /** The file, its reads each taking a moment; a read that takes byte `failAt` fails. */
    const watched = (source: string, failAt = Number.POSITIVE_INFINITY) => {
      const reading = readingOf(source);
      let running = 0;
      const bytes: FileReading['bytes'] = async (position, length, into) => {
        running++;
        try {
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (position <= failAt && failAt < position + length) throw new Error('EIO: i/o error, read');
          return await reading.bytes(position, length, into);
        } finally {
          running--;
        }
      };
      return { reading: { ...reading, bytes }, running: () => running };
    };
    const givenUp = watched(damaged);
    expect(await streamPetFile(givenUp.reading, NO_CHANGES, 'animals.json')).toBeUndefined();
    expect(givenUp.running()).toBe(0);
    // A read in the middle of the animals' list, which only their parse reads (the outline reads the first and last megabyte).
    const failing = watched(text, 1.25 * 1024 * 1024);
    expect(Buffer.byteLength(text)).toBeGreaterThan(2.5 * 1024 * 1024);
    await expect(streamPetFile(failing.reading, NO_CHANGES, 'animals.json')).rejects.toThrow(/EIO/);
    expect(failing.running()).toBe(0);
  });

  it('Should read names and keys holding the texts a file is cut at as they are', async () => {
    const data = dataWith(16_000, 5_000);
    // Every 100th name holds an item's end; the last key's text is the keys' field, and a name the sync field.
    for (let at = 0; at < data.pets.length; at += 100)
      data.pets[at] = { ...data.pets[at]!, name: `Rex},{"id":${at}},],"idempotencyKeys":[` };
    data.pets[9]!.name = '"sync":{}';
    const lastKey = data.idempotencyKeys.length - 1;
    const withFieldKey = structuredClone(data);
    withFieldKey.idempotencyKeys[lastKey] = { ...withFieldKey.idempotencyKeys[lastKey]!, key: 'idempotencyKeys' };
    for (const text of [textOf(data), JSON.stringify({ ...data, idempotencyKeys: data.idempotencyKeys.map(keyToFile) })]) {
      const streamed = await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json');
      expect(streamed).toBeDefined();
      expect([...streamed!.content.pets]).toEqual(data.pets);
      expect([...streamed!.content.idempotencyKeys.values()]).toEqual(data.idempotencyKeys);
    }
    // A key whose text is the keys' field itself, after the field: no field, as no list follows it.
    const streamed = await streamPetFile(readingOf(textOf(withFieldKey)), NO_CHANGES, 'animals.json');
    expect([...streamed!.content.idempotencyKeys.values()]).toEqual(withFieldKey.idempotencyKeys);
  });

  it('Should read a large file with its fields in any order a range at a time, to the content parsePetFile reads', async () => {
    const sync = {
      leases: [{ scope: SCOPE, first: 1_000_001, last: 1_001_000 }],
      kiosk: { hub: 'https://hub.example', blocks: [{ first: 7, last: 9 }], nextId: 8, pushedThrough: 0, checkpoint: 3 },
    } as PetFileData['sync'];
    const data = dataWith(16_000, 6_000, sync);
    // An animal named as the keys' field and a key as the animals': texts, not fields.
    data.pets[5]!.name = 'idempotencyKeys';
    data.idempotencyKeys[7]!.key = 'pets';
    const { format, nextId, pets } = data;
    const idempotencyKeys = data.idempotencyKeys.map(keyToFile);
    const layouts = {
      'sorted (jq -S, Go, sort_keys)': { format, idempotencyKeys, nextId, pets, sync },
      'sorted and indented': JSON.stringify({ format, idempotencyKeys, nextId, pets, sync }, null, 2),
      'the keys first, the next id last': { idempotencyKeys, format, pets, sync, nextId },
      'the lists first': { pets, idempotencyKeys, nextId, sync, format },
      'the sync part first': { sync, nextId, format, pets, idempotencyKeys },
      'an empty keys list first': { idempotencyKeys: [], nextId, format, pets },
    };
    for (const [layout, file] of Object.entries(layouts)) {
      const text = `\ufeff ${typeof file === 'string' ? file : JSON.stringify(file)}\n`;
      expect(Buffer.byteLength(text), layout).toBeGreaterThan(1024 * 1024);
      const streamed = await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json');
      const parsed = parsePetFile(text.slice(1), 'animals.json');
      expect(streamed, layout).toBeDefined();
      expect(plain(streamed!.content), layout).toEqual(plain(toPetFileContent(parsed)));
      expect(streamed!.content.sync, layout).toEqual(typeof file === 'string' || 'sync' in file ? sync : undefined);
      expect(streamed!.content.idempotencyKeys.size, layout).toBe(layout === 'an empty keys list first' ? 0 : 6_000);
      // Where the animals lie, for a whole write to look at: from after their `[` to their `]`.
      const { offset, length } = streamed!.petLines!;
      expect(JSON.parse(`[${Buffer.from(text).toString('utf8', offset, offset + length)}]`), layout).toEqual(pets);
    }
  });

  it('Should read any valid file, its fields in any order and spaced any way, as parsePetFile does', async () => {
    // Names and keys holding the texts the outline seeks and cuts at.
    const tricky = fc
      .array(fc.constantFrom('"pets":[', '"idempotencyKeys":[', ']', '],', '},', '{', '"sync":{', ',', 'Rex', ' '), {
        minLength: 1,
        maxLength: 4,
      })
      .map((parts) => parts.join(''));
    const spacing = fc.constantFrom('', ' ', '\n', '\r\n', '\t ', '  \n  ');
    const file = fc
      .record({
        names: fc.array(tricky, { maxLength: 12 }),
        keyTexts: fc.uniqueArray(tricky, { maxLength: 8 }),
        sync: fc.boolean(),
        order: fc.shuffledSubarray(['format', 'nextId', 'pets', 'idempotencyKeys', 'sync'], { minLength: 5 }),
        indent: fc.constantFrom(undefined, 2, '\t'),
        around: fc.array(spacing, { minLength: 24, maxLength: 24 }),
      })
      .map(({ names, keyTexts, sync, order, indent, around }) => {
        const pets = names.map((name, at): Pet => ({ id: at + 1, name: `Rex ${name}`, categoryId: 1 + at, status: 'available' }));
        const idempotencyKeys = (pets.length === 0 ? [] : keyTexts).map((key, at) =>
          keyToFile({
            scope: SCOPE,
            key,
            fingerprint: 'Qm9Xc2VlZA',
            petId: 1 + (at % pets.length),
            createdAt: NOW,
            expiresAt: NOW + 86_400_000,
          }),
        );
        const fields: Record<string, unknown> = { format: 2, nextId: pets.length + 1, pets, idempotencyKeys };
        if (sync) fields.sync = { leases: [{ scope: SCOPE, first: 1_000_001, last: 1_001_000 }] };
        const present = order.filter((name) => name in fields);
        let space = 0;
        const next = () => around[space++ % around.length]!;
        const body = present.map((name) => `${next()}"${name}"${next()}:${next()}${JSON.stringify(fields[name], null, indent)}${next()}`);
        return `${next()}{${body.join(',')}}${next()}`;
      });
    await fc.assert(
      fc.asyncProperty(file, fc.boolean(), async (text, byteOrderMark) => {
        const parsed = toPetFileContent(parsePetFile(text, 'animals.json'));
        const streamed = await streamPetFile(readingOf(byteOrderMark ? `\ufeff${text}` : text), NO_CHANGES, 'animals.json');
        expect(streamed).toBeDefined();
        expect(plain(streamed!.content)).toEqual(plain(parsed));
      }),
      { numRuns: 300 },
    );
  });

  it("Should seek a list's name across keys that hold it as their text with a read a megabyte, not one a key", async () => {
    const data = dataWith(16_000, 6_000);
    // Every key's text is the animals' field's name, each in a scope of its own.
    const idempotencyKeys = data.idempotencyKeys.map((key, at) => keyToFile({ ...key, scope: at.toString(16), key: 'pets' }));
    const text = JSON.stringify({ format: 2, idempotencyKeys, nextId: data.nextId, pets: data.pets });
    const reading = readingOf(text);
    let reads = 0;
    const counted: FileReading = {
      ...reading,
      bytes: (...args) => {
        reads++;
        return reading.bytes(...args);
      },
    };
    const streamed = await streamPetFile(counted, NO_CHANGES, 'animals.json');
    expect([...streamed!.content.pets]).toEqual(data.pets);
    expect(streamed!.content.idempotencyKeys.size).toBe(6_000);
    // The head, the keys (a chunk or two), the list ends, the keys for the worker, the animals: a handful, not 6,000.
    expect(reads).toBeLessThan(20);
  });

  it('Should read a large file the usual way when its fields are not two lists and the small ones, to what parsePetFile says', async () => {
    const data = dataWith(16_000, 6_000);
    const { format, nextId, pets } = data;
    const keys = data.idempotencyKeys.map(keyToFile);
    const half = keys.length / 2;
    const twice = `{"format":2,"nextId":${nextId},"pets":${JSON.stringify(pets)},"idempotencyKeys":${JSON.stringify(keys.slice(0, half))},"idempotencyKeys":${JSON.stringify(keys.slice(half))}}`;
    const otherwise = {
      // JSON's last field of a name wins, as parsePetFile reads it.
      'the keys field twice': twice,
      'the animals field twice, once after the keys': `${JSON.stringify({ format, nextId, pets: pets.slice(0, 8_000), idempotencyKeys: keys }).slice(0, -1)},"pets":${JSON.stringify(pets.slice(8_000))}}`,
      'the animals field again after the keys, not a list': `${JSON.stringify({ format, nextId, pets, idempotencyKeys: keys }).slice(0, -1)},"pets":null}`,
      'an unknown field between the lists': `{"format":2,"nextId":${nextId},"pets":${JSON.stringify(pets)},"extra":[1],"idempotencyKeys":${JSON.stringify(keys)}}`,
      'an unknown field after them': JSON.stringify({ format, nextId, pets, idempotencyKeys: keys, extra: {} }),
      'a format this version reads whole, then upgrades': JSON.stringify({ format: 1, nextId, pets }),
      'no animals': JSON.stringify({ format, nextId, idempotencyKeys: keys, extra: pets }),
      'no keys (format 2 asks for the list, [] for none)': JSON.stringify({ pets, nextId, format }),
      'two commas between the lists': `{"format":2,"nextId":${nextId},"pets":${JSON.stringify(pets)},,"idempotencyKeys":${JSON.stringify(keys)}}`,
      'a comma after the last field': `${JSON.stringify({ pets, idempotencyKeys: keys, format, nextId }).slice(0, -1)},}`,
      'text after the end': `${JSON.stringify({ format, nextId, pets })}\u00a0`,
    };
    for (const [layout, text] of Object.entries(otherwise)) {
      expect(Buffer.byteLength(text), layout).toBeGreaterThan(1024 * 1024);
      expect(await streamPetFile(readingOf(text), NO_CHANGES, 'animals.json'), layout).toBeUndefined();
      const whole = await thrown(() => parsePetFile(text, 'animals.json')).catch(() => undefined);
      if (whole === undefined) {
        const { content } = await readPetFileContent(readingOf(text), 'animals.json', NO_CHANGES);
        expect(plain(content), layout).toEqual(plain(toPetFileContent(parsePetFile(text, 'animals.json'))));
      } else {
        expect(whole, layout).toBeInstanceOf(DataFileError);
        await expect(readPetFileContent(readingOf(text), 'animals.json', NO_CHANGES), layout).rejects.toThrow((whole as Error).message);
      }
    }
  });

  describe('with a journal beside it', () => {
    /** The changes a start reads from a journal holding `lines` (a fresh read each call: the worker takes what it is lent). */
    const journalOf = async (lines: string[]) => {
      const file = tempDataFile();
      const written = await Journal.open(nodeFileSystem, file, file);
      for (const line of lines) await written.append(line);
      await written.close();
      return Object.assign(
        async () => {
          const journal = await Journal.open(nodeFileSystem, file, file);
          const changes = await journal.read();
          await journal.close();
          return changes;
        },
        { file: journalPath(file) },
      );
    };

    /** Changes after the file's data: `count` lines of `perLine` new animals each, a key for each, one key the file holds, one line of animals it holds. */
    const changesAfter = (data: PetFileData, count: number, perLine: number, sync?: PetFileData['sync']): string[] => {
      const lines: string[] = [];
      let id = data.nextId;
      for (let line = 0; line < count; line++) {
        const pets = Array.from({ length: perLine }, (): Pet => ({ id: id++, name: `Journal ${id}`, categoryId: 2, status: 'pending' }));
        const keys = pets.map((pet, at) => ({
          ...data.idempotencyKeys[at % data.idempotencyKeys.length]!,
          key: `journal ${pet.id}`,
          petId: pet.id,
        }));
        lines.push(encodePetChange({ nextId: id, pets, keys, sync: line === count - 1 ? sync : undefined }));
      }
      // A key and animals the file holds already: a whole write's crash left them in both.
      lines.push(encodePetChange({ nextId: 3, pets: data.pets.slice(0, 2), keys: data.idempotencyKeys.slice(0, 1) }));
      return lines;
    };

    /** How many of the journal's first changes the worker reads: all, none (all in this thread), or half. */
    const shares: [string, (journal: JournalChanges) => number][] = [
      ['the worker reads them', (journal) => journal.length],
      ['this thread reads them', () => 0],
      ['the worker reads half, this thread the rest', (journal) => Math.floor(journal.length / 2)],
    ];

    it.each([
      ['many keys', () => dataWith(3_000, 6_000), 40, 5],
      ['few keys and a long journal', () => dataWith(14_000, 500), 600, 20],
      ['few keys and a short journal', () => dataWith(14_000, 500), 20, 5],
      ['keys, a sync part and a journal that changes it', () => dataWith(3_000, 6_000, sync), 40, 5],
    ])(
      'Should apply the journal of a large file with %s as the file read whole does, whichever thread reads which changes',
      async (_, make, count, perLine) => {
        const data = make();
        const newSync = data.sync && { leases: [...data.sync.leases, { scope: SCOPE, first: 2_000_001, last: 2_000_500 }] };
        const read = await journalOf(changesAfter(data, count, perLine, newSync));
        const text = textOf(data);
        const whole = toPetFileContent(parsePetFile(text, 'animals.json'));
        replayPetChanges(whole, await read(), 'animals.json');
        expect(whole.pets).toHaveLength(data.pets.length + count * perLine);
        expect(whole.idempotencyKeys.size).toBe(data.idempotencyKeys.length + count * perLine);
        const changes = await Promise.all(shares.map(() => read()));
        // Gone from the disk once read: the changes were replayed from what the start read, not read again.
        fs.unlinkSync(read.file);
        for (const [at, [, shareOf]] of shares.entries()) {
          const streamed = await streamPetFile(readingOf(text), changes[at]!, 'animals.json', shareOf);
          expect(streamed).toBeDefined();
          expect(plain(streamed!.content)).toEqual(plain(whole));
          if (newSync) expect(streamed!.content.sync).toEqual(newSync);
          // The file's key lines end where the journal's keys begin.
          expect(streamed!.keyLines).toEqual(keyLinesOf(text, data.idempotencyKeys.length));
        }
      },
    );

    it.each([...shares, ['the worker reads the first, valid one, this thread the rest', () => 1]] as typeof shares)(
      'Should name the first change that is not valid, read again from the journal when a thread could not use it (%s)',
      async (_, shareOf) => {
        const data = dataWith(3_000, 6_000);
        const lines = changesAfter(data, 3, 2);
        lines.splice(1, 0, '{"format":2,"nextId":"many","pets":[],"idempotencyKeys":[]}');
        const read = await journalOf(lines);
        const text = textOf(data);
        const expected = await thrown(() =>
          replayPetChanges(toPetFileContent(parsePetFile(text, 'animals.json')), [...lines], 'animals.json'),
        );
        expect(expected).toBeInstanceOf(DataFileError);
        expect((expected as Error).message).toMatch(/line 2 of its journal is not a valid change/);
        const changes = await read();
        // Named here, or left to the caller, which reads the file whole (when the worker gave the keys' part up).
        const streamed = await streamPetFile(readingOf(text), changes, 'animals.json', shareOf).catch((error: unknown) => error);
        if (streamed !== undefined) {
          expect(streamed).toBeInstanceOf(DataFileError);
          expect((streamed as Error).message).toBe((expected as Error).message);
        }
        // And so by a start, with the share it makes.
        const atStart = await read();
        const fromStart = await thrown(() => readPetFileContent(readingOf(text), 'animals.json', atStart));
        expect((fromStart as Error).message).toBe((expected as Error).message);
      },
    );
  });
});
