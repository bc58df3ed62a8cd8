import fc from 'fast-check';
import * as v from 'valibot';
import { describe, expect, it, vi } from 'vitest';
import type { IdempotencyKey } from '../../../core/PetStorage.js';
import { bytesOfParts } from '../../../storage/durableFile/index.js';
import type { PetChange } from '../../../storage/jsonFile/format/PetChange.js';
import { type Appended, appendEntries, type PetFileContent, toPetFileContent } from '../../../storage/jsonFile/format/PetFileContent.js';
import { PetFileJson } from '../../../storage/jsonFile/format/PetFileData.js';
import { KeyLines, keyLine } from '../../../storage/jsonFile/write/KeyLines.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { keyToFile } from './keyToFile.js';

const DAY = 86_400_000;
const START = Date.parse('2026-11-25T00:00:00Z');
const SCOPE = 'a'.repeat(64);

const keyAt = (at: number): IdempotencyKey => ({
  scope: SCOPE,
  key: `9f1c2d3e-4b5a-4c6d-8e7f-${String(at).padStart(12, '0')}`,
  fingerprint: 'Qk9vVWJ6cE1hR0Z5ZFdWd1lXeHZZV1E',
  createdAt: START + at,
  expiresAt: START + at + DAY,
});

/** A file's content with `count` animals, each created with a key, one a millisecond. */
const contentWith = (count: number): PetFileContent => {
  const content = toPetFileContent({ format: 2, nextId: 1, pets: [], idempotencyKeys: [] });
  const entries = Array.from({ length: count }, (_, at) => ({
    newPet: { name: `Animal ${at}`, categoryId: 1, status: 'available' as const },
    key: keyAt(at),
  }));
  appendEntries(content, entries);
  return content;
};

/**
 * What a whole write's deferred parts read back, from the file and the journal as the
 * functions give them (a buffer, or `undefined` where the real file would not give them back).
 */
const readingFrom = (
  file: () => Buffer,
  journal: (generation: number, offset: number, length: number) => Buffer | undefined = () => undefined,
) => ({
  readOwnBytes: async (offset: number, length: number) => {
    if (offset + length > file().byteLength) throw new Error('not in the file');
    return Buffer.from(file().subarray(offset, offset + length));
  },
  readJournalBytes: async (generation: number, offset: number, length: number) => {
    const bytes = journal(generation, offset, length);
    if (!bytes) throw new Error('not in the journal');
    return bytes;
  },
});

/** The bytes of a whole write of `content`, copying from `file` (and the journal) what the serialiser copies. */
const writeWhole = (serializer: PetFileSerializer, content: PetFileContent, reading = readingFrom(() => Buffer.alloc(0))) =>
  bytesOfParts(serializer.serialize(content), reading);

const text = async (serializer: PetFileSerializer, content: PetFileContent, reading?: ReturnType<typeof readingFrom>) =>
  (await writeWhole(serializer, content, reading)).toString('utf8');

/**
 * `journal` with `change` appended as a journal writes its lines (a checksum's 16 characters
 * and a space before the change, a line break after), and where the change's bytes start.
 */
const withLine = (journal: Buffer, change: string) => ({
  journal: Buffer.concat([journal, Buffer.from(`${'0'.repeat(16)} ${change}\n`)]),
  offset: journal.byteLength + 17,
});

/** Bytes encoded by each of `writes` writes that each add one keyed animal. */
const encodedPerWrite = (content: PetFileContent, serializer: PetFileSerializer, writes: number): number[] => {
  const encoded: number[] = [];
  for (let write = 0; write < writes; write++) {
    const at = content.pets.length;
    appendEntries(content, [{ newPet: { name: `Animal ${at}`, categoryId: 1, status: 'available' }, key: keyAt(at) }]);
    const before = serializer.encodedBytes;
    serializer.serialize(content);
    encoded.push(serializer.encodedBytes - before);
  }
  return encoded;
};

describe('The data file encodes its Idempotency-Keys ahead of a whole write', () => {
  it('Should encode at the write only what came after the preparation, whether 10 or 30,000 keys are live, and keep no key bytes after it', {
    timeout: 30_000,
  }, async () => {
    const sizes = [10, 30_000];
    const [few, many] = await Promise.all(
      sizes.map(async (size) => {
        const content = contentWith(size);
        const serializer = new PetFileSerializer();
        // A whole write before (the animals' bytes are kept, the keys' are not), then the preparation of the next.
        serializer.serialize(content);
        await serializer.prepare(content, () => false, { keys: true });
        return { content, serializer, encoded: encodedPerWrite(content, serializer, 1) };
      }),
    );
    // One animal line and one key line, a few hundred bytes: the same at ten keys and at 30,000.
    for (const bytes of [...few!.encoded, ...many!.encoded]) expect(bytes).toBeLessThan(400);
    // The keys' bytes left with the write: the next whole write, unprepared, encodes every key again.
    const before = many!.serializer.encodedBytes;
    const written = await text(many!.serializer, many!.content);
    expect(many!.serializer.encodedBytes - before).toBeGreaterThan(30_001 * 150);
    // And the bytes are the file's: what a fresh serialiser writes, a valid data file.
    expect(written).toBe(await text(new PetFileSerializer(), many!.content));
    expect(v.parse(PetFileJson, JSON.parse(written)).idempotencyKeys).toHaveLength(30_001);
  });

  it('Should drop expired keys from the front of a prepared write without encoding the live ones again', async () => {
    const content = contentWith(5_000);
    const serializer = new PetFileSerializer();
    serializer.serialize(content);
    await serializer.prepare(content, () => false, { keys: true });
    // Keys 0..2,999 expire by then.
    expect(content.idempotencyKeys.sweep(START + 2_999 + DAY, 10_000)).toBe(3_000);
    const before = serializer.encodedBytes;
    const written = await text(serializer, content);
    expect(serializer.encodedBytes).toBe(before);
    expect(written).toBe(await text(new PetFileSerializer(), content));
    expect(JSON.parse(written).idempotencyKeys[0].key).toBe(keyAt(3_000).key);
  });

  it('Should drop expired keys from the front of a prepared write when keys hold characters beyond ASCII', async () => {
    const content = contentWith(0);
    // Two, three and four bytes a character in UTF-8, and one or two UTF-16 units.
    const wide = (at: number) => ({ ...keyAt(at), key: `ключ-${at}-€-😀` });
    appendEntries(
      content,
      Array.from({ length: 1_000 }, (_, at) => ({
        newPet: { name: `Animal ${at}`, categoryId: 1, status: 'available' as const },
        key: wide(at),
      })),
    );
    const serializer = new PetFileSerializer();
    await serializer.prepare(content, () => false, { keys: true });
    expect(content.idempotencyKeys.sweep(START + 299 + DAY, 10_000)).toBe(300);
    const written = await text(serializer, content);
    expect(written).toBe(await text(new PetFileSerializer(), content));
    expect(JSON.parse(written).idempotencyKeys[0].key).toBe(wide(300).key);
  });

  it('Should read back the keys a whole write put in the file, encoding only the keys that came since', async () => {
    const content = contentWith(20_000);
    const serializer = new PetFileSerializer();
    let file = await writeWhole(serializer, content);
    serializer.written();
    const reads: number[] = [];
    const readOwnBytes = async (offset: number, length: number) => {
      reads.push(length);
      return Buffer.from(file.subarray(offset, offset + length));
    };
    appendEntries(
      content,
      Array.from({ length: 10 }, (_, at) => ({
        newPet: { name: `New ${at}`, categoryId: 1, status: 'available' as const },
        key: keyAt(20_000 + at),
      })),
    );
    content.idempotencyKeys.sweep(START + 4_999 + DAY, 100_000);
    const before = serializer.encodedBytes;
    await serializer.prepare(content, () => false, { keys: true, readOwnBytes });
    file = await writeWhole(
      serializer,
      content,
      readingFrom(() => file),
    );
    serializer.written();
    // Ten keys' lines and ten animals' encoded, not 15,010 keys'.
    expect(serializer.encodedBytes - before).toBeLessThan(20 * 400);
    // Read a megabyte at a time, and only as far as the 5,000 expired keys' lines and a
    // megabyte past them: not the file's 15,010 live ones, which the write copies.
    const keysAt = file.indexOf('"idempotencyKeys"');
    const expiredEnd = file.indexOf(keyAt(5_000).key) - keysAt;
    expect(reads.length).toBeGreaterThan(1);
    expect(Math.max(...reads)).toBeLessThanOrEqual(1024 * 1024 + 3);
    expect(reads.reduce((sum, length) => sum + length, 0)).toBeLessThanOrEqual(expiredEnd + 2 * (1024 * 1024 + 3));
    expect(file.toString('utf8')).toBe(await text(new PetFileSerializer(), content));
    expect(JSON.parse(file.toString('utf8')).idempotencyKeys[0].key).toBe(keyAt(5_000).key);

    // Bytes that are not those lines (a file changed under the same version) are not taken: every key is encoded again.
    const garbled = async (offset: number, length: number) => {
      const bytes = Buffer.from(file.subarray(offset, offset + length));
      bytes.write('{"odd":1}\n', Math.floor(length / 2), 'latin1');
      return bytes;
    };
    const again = serializer.encodedBytes;
    await serializer.prepare(content, () => false, { keys: true, readOwnBytes: garbled });
    expect(serializer.encodedBytes - again).toBeGreaterThan(15_010 * 150);
    expect(
      await text(
        serializer,
        content,
        readingFrom(() => file),
      ),
    ).toBe(await text(new PetFileSerializer(), content));
  });

  it('Should encode the lines of keys that expired after the preparation past the lines it found, and write what a fresh serialiser writes', async () => {
    const content = contentWith(30_000);
    const serializer = new PetFileSerializer();
    const file = await writeWhole(serializer, content);
    serializer.written();
    let read = 0;
    const readOwnBytes = async (offset: number, length: number) => {
      read += length;
      return Buffer.from(file.subarray(offset, offset + length));
    };
    await serializer.prepare(content, () => false, { keys: true, readOwnBytes });
    // No key had expired: the first megabyte of lines (about 3,000 keys) and the last byte were read.
    expect(read).toBeLessThanOrEqual(1024 * 1024 + 2);
    // Then 20,000 expire before the write: it cannot start past their lines, so it encodes the 10,000 left.
    expect(content.idempotencyKeys.sweep(START + 19_999 + DAY, 100_000)).toBe(20_000);
    const before = serializer.encodedBytes;
    const written = await text(
      serializer,
      content,
      readingFrom(() => file),
    );
    expect(serializer.encodedBytes - before).toBeGreaterThan(10_000 * 150);
    expect(written).toBe(await text(new PetFileSerializer(), content));
    expect(JSON.parse(written).idempotencyKeys[0].key).toBe(keyAt(20_000).key);
  });

  it('Should write what a fresh serialiser writes through many small writes, sweeps, failed writes and an empty queue', async () => {
    const content = contentWith(0);
    const serializer = new PetFileSerializer();
    // The file as the last whole write that succeeded left it, which `prepare` reads keys' lines back from.
    let file: Buffer = Buffer.alloc(0);
    let reads = 0;
    const readOwnBytes = async (offset: number, length: number) => {
      reads++;
      return offset + length <= file.byteLength ? Buffer.from(file.subarray(offset, offset + length)) : undefined;
    };
    let at = 0;
    for (let write = 0; write < 400; write++) {
      const entries = Array.from({ length: 1 + (write % 7) }, (_, offset) => ({
        newPet: { name: `Animal ${at + offset}`, categoryId: 2, status: 'sold' as const },
        ...(offset % 3 === 2 ? {} : { key: keyAt(at + offset) }),
      }));
      if (write % 5 === 0) await serializer.prepare(content, () => false, { keys: true, readOwnBytes });
      const appended = appendEntries(content, entries);
      at += entries.length;
      if (write % 11 === 5) {
        // A failed write: its animals and keys leave again, and the serialiser is told.
        if (write % 2 === 1) await serializer.prepare(content, () => false, { keys: true });
        appended.undo(false);
        at -= entries.length;
        serializer.forgetFrom(appended.before.pets);
        serializer.forgetKeysFrom(appended.before.keys);
      }
      if (write % 13 === 0) content.idempotencyKeys.sweep(START + at - 300 + DAY, 1 + (write % 200));
      if (write === 300) content.idempotencyKeys.sweep(START + at + DAY, 1_000_000);
      const written = await writeWhole(
        serializer,
        content,
        readingFrom(() => file),
      );
      expect(written.toString('utf8')).toBe(await text(new PetFileSerializer(), content));
      // Most whole writes succeed and are the file; some fail and leave the one before.
      if (write % 17 !== 3) {
        file = written;
        serializer.written();
      }
    }
    expect(reads).toBeGreaterThan(40);
  });

  it('Should copy the keys of journal lines into whole writes as a fresh serialiser writes them, through failed appends, sweeps and emptied journals', async () => {
    const content = contentWith(0);
    const serializer = new PetFileSerializer();
    const copied = vi.spyOn(KeyLines.prototype, 'append');
    // The journal as PetFile's appends leave it: a checksum's 16 characters and a space before each change.
    let journal = Buffer.alloc(0);
    let generation = 0;
    const readJournalBytes = async (at: number, offset: number, length: number) =>
      at === generation && offset + length <= journal.byteLength ? Buffer.from(journal.subarray(offset, offset + length)) : undefined;
    let file: Buffer = Buffer.alloc(0);
    const readOwnBytes = async (offset: number, length: number) =>
      offset + length <= file.byteLength ? Buffer.from(file.subarray(offset, offset + length)) : undefined;
    const changeOf = ({ entries }: Appended): PetChange => ({
      nextId: content.nextId,
      pets: entries.map(({ pet }) => pet),
      keys: entries.flatMap(({ stored }) => (stored ? [stored] : [])),
    });
    let at = 0;
    let keyed = 0;
    const fewKeyLines: [number, number][] = [];
    for (let write = 0; write < 300; write++) {
      // Every third write a batch of many keys (as under load), the rest a few.
      const entries = Array.from({ length: write % 3 === 0 ? 30 + (write % 9) : 1 + (write % 7) }, (_, offset) => ({
        // Names beyond ASCII before the keys, and keys with quotes and backslashes: offsets are bytes.
        newPet: { name: offset % 2 === 0 ? `Zoë ${at + offset}` : `Animal ${at + offset}`, categoryId: 2, status: 'sold' as const },
        ...(offset % 3 === 2 ? {} : { key: { ...keyAt(at + offset), key: `"${at + offset}" \\ ${write}` } }),
      }));
      const appended = appendEntries(content, entries);
      at += entries.length;
      const change = serializer.encodeChange(changeOf(appended));
      if (write % 11 === 5) {
        // A failed append: its animals and keys leave again, and the serialiser is told.
        appended.undo(false);
        at -= entries.length;
        serializer.forgetFrom(appended.before.pets);
        serializer.forgetKeysFrom(appended.before.keys);
      } else {
        let offset: number;
        ({ journal, offset } = withLine(journal, change));
        serializer.appended({ generation, offset, length: Buffer.byteLength(change) }, content.idempotencyKeys, appended.before.keys);
        const keys = appended.entries.filter(({ stored }) => stored).length;
        keyed += keys;
        if (keys > 0 && keys < 16) fewKeyLines.push([appended.before.keys, appended.before.keys + keys]);
      }
      if (write % 13 === 0) content.idempotencyKeys.sweep(START + at - 300 + DAY, 1 + (write % 200));
      if (write % 9 === 8) {
        await serializer.prepare(content, () => false, { keys: true, readOwnBytes, readJournalBytes });
        const journalBytes = (at: number, offset: number, length: number) =>
          at === generation && offset + length <= journal.byteLength ? Buffer.from(journal.subarray(offset, offset + length)) : undefined;
        const written = await writeWhole(
          serializer,
          content,
          readingFrom(() => file, journalBytes),
        );
        expect(written.toString('utf8')).toBe(await text(new PetFileSerializer(), content));
        // Most whole writes succeed, are the file, and empty the journal; some fail and leave both.
        if (write % 4 !== 3) {
          file = written;
          serializer.written();
          journal = Buffer.alloc(0);
          generation++;
        }
      }
    }
    // Most keys reached the document from their journal lines.
    const copiedKeys = copied.mock.calls.reduce(
      (sum, [, lines], call) => sum + (copied.mock.results[call]!.value ? lines.end - lines.start : 0),
      0,
    );
    expect(copiedKeys).toBeGreaterThan(keyed / 2);
    // Lines of a few keys too (a kiosk's holds one; under load on a fast disk, a few): all
    // but those appended after the last whole write, or to a journal a failed one left.
    const copiedRanges = copied.mock.calls.filter((_, call) => copied.mock.results[call]!.value).map(([, lines]) => lines);
    const fewCopied = fewKeyLines.filter(([first, after]) => copiedRanges.some(({ start, end }) => start <= first && after <= end));
    expect(fewCopied.length).toBeGreaterThan(fewKeyLines.length * 0.9);
    copied.mockRestore();
  });

  it('Should finish preparing while keys keep coming, copying only the keys there when it began', async () => {
    const content = contentWith(0);
    const serializer = new PetFileSerializer();
    let journal = Buffer.alloc(0);
    let at = 0;
    // One journal line of 20 keyed animals, noted as PetFile notes it.
    const appendLine = () => {
      const appended = appendEntries(
        content,
        Array.from({ length: 20 }, (_, offset) => ({
          newPet: { name: `Animal ${at + offset}`, categoryId: 2, status: 'sold' as const },
          key: keyAt(at + offset),
        })),
      );
      at += 20;
      const change = serializer.encodeChange({
        nextId: content.nextId,
        pets: appended.entries.map(({ pet }) => pet),
        keys: appended.entries.map(({ stored }) => stored!),
      });
      let offset: number;
      ({ journal, offset } = withLine(journal, change));
      serializer.appended({ generation: 0, offset, length: Buffer.byteLength(change) }, content.idempotencyKeys, appended.before.keys);
    };
    for (let line = 0; line < 50; line++) appendLine();
    // A flood: each read of the journal finds another line appended meanwhile.
    let reads = 0;
    const readJournalBytes = async (_generation: number, offset: number, length: number) => {
      if (++reads > 200) throw new Error('the preparation chased the flood');
      appendLine();
      return Buffer.from(journal.subarray(offset, offset + length));
    };
    await serializer.prepare(content, () => false, { keys: true, readJournalBytes });
    expect(reads).toBeLessThan(10);
    const journalBytes = (_generation: number, offset: number, length: number) => Buffer.from(journal.subarray(offset, offset + length));
    expect(
      await text(
        serializer,
        content,
        readingFrom(() => Buffer.alloc(0), journalBytes),
      ),
    ).toBe(await text(new PetFileSerializer(), content));
  });

  it('Should write each key as JSON.stringify writes it, whatever its text', () => {
    const stored = fc.record({
      scope: fc.string(),
      key: fc.string(),
      fingerprint: fc.string(),
      petId: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
      createdAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
      expiresAt: fc.integer({ min: 0, max: 4_000_000_000_000 }),
    });
    fc.assert(
      fc.property(stored, (key) => {
        expect(keyLine(key)).toBe(`,\n${JSON.stringify(keyToFile(key))}`);
      }),
      { numRuns: 1_000 },
    );
  });
});

describe('A whole write gives back the bytes it passed through', () => {
  it('Should free the animals it encoded ahead once the file holds them, and each buffer it read through once done, and still write what a fresh serialiser writes', async () => {
    const content = contentWith(20_000);
    const serializer = new PetFileSerializer();
    await serializer.prepare(content, () => false, { keys: true });
    const parts = serializer.serialize(content);
    // 20,000 animals: four full chunks of 4,096, encoded ahead into buffers of their own.
    const encodedAhead = parts.filter((part): part is Buffer => part instanceof Uint8Array && (part.buffer as ArrayBuffer).resizable);
    expect(encodedAhead).toHaveLength(4);
    let file = await bytesOfParts(
      parts,
      readingFrom(() => Buffer.alloc(0)),
    );
    expect(encodedAhead.every((part) => part.byteLength > 100_000)).toBe(true);
    serializer.written();
    expect(encodedAhead.every((part) => part.byteLength === 0)).toBe(true);

    // The next whole write finds the keys in the file and copies them and the animals from
    // it, a megabyte at a time, through buffers that are freed once each copy is done.
    appendEntries(
      content,
      Array.from({ length: 10 }, (_, at) => ({
        newPet: { name: `New ${at}`, categoryId: 1, status: 'available' as const },
        key: keyAt(20_000 + at),
      })),
    );
    const readInto: Buffer[] = [];
    const readOwnBytes = async (offset: number, length: number, into?: Buffer) => {
      if (!into) throw new Error('read without a buffer of its own');
      readInto.push(into);
      return into.subarray(0, file.copy(into, 0, offset, offset + length));
    };
    await serializer.prepare(content, () => false, { keys: true, readOwnBytes });
    const preparedWith = readInto.length;
    expect(preparedWith).toBeGreaterThan(0);
    expect(readInto.every((bytes) => bytes.byteLength === 0)).toBe(true);
    file = await bytesOfParts(serializer.serialize(content), { ...readingFrom(() => file), readOwnBytes });
    expect(readInto.length).toBeGreaterThan(preparedWith + 4);
    expect(readInto.every((bytes) => bytes.byteLength === 0)).toBe(true);
    expect(file.toString('utf8')).toBe(await text(new PetFileSerializer(), content));
  });
});
