import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IdempotencyKey } from '../../../core/PetStorage.js';
import { DurableTextFile, FileChangedError, type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { IdempotencyKeys } from '../../../storage/IdempotencyKeys.js';
import { type JsonFileStorage, openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { parsePetFile } from '../../../storage/jsonFile/read/parsePetFile.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { holdingWholeWrites, settled, until } from './controlledFileSystem.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

const keyAt = (key: string): IdempotencyKey => {
  const createdAt = Date.now();
  return { scope: 'a1b2c3', key, fingerprint: 'digest-of-payload', createdAt, expiresAt: createdAt + 86_400_000 };
};

/** How many bytes one read back from the file or the journal may take: a megabyte, and the few bytes around it a check needs. */
const PIECE = 1024 * 1024 + 3;

afterEach(() => {
  vi.restoreAllMocks();
});

/** Creates `count` keyed animals, a hundred at a time (as under load, sharing journal lines); records each key's animal. */
const createKeyed = async (storage: JsonFileStorage, prefix: string, count: number, created: Map<string, number>) => {
  for (let at = 0; at < count; at += 100) {
    const keys = Array.from({ length: Math.min(100, count - at) }, (_, offset) => `${prefix}-${at + offset}`);
    const answers = await Promise.all(keys.map((key) => storage.createIdempotent(rex, keyAt(key))));
    for (const [index, { pet }] of answers.entries()) created.set(keys[index]!, pet.id);
  }
};

/** The document on disk is laid out byte for byte as a fresh serialiser lays out what it holds, and every key replays its animal after a start. */
const expectWholeAndEveryKey = async (file: string, created: Map<string, number>) => {
  const text = fs.readFileSync(file, 'utf8');
  const data = parsePetFile(text, file);
  expect(Buffer.concat(new PetFileSerializer().serialize(data)).toString('utf8')).toBe(text);
  expect(data.idempotencyKeys.map(({ key, petId }) => [key, petId])).toEqual([...created]);
  const storage = await openJsonFileStorage({ file });
  for (const [key, id] of created) expect(await storage.createIdempotent(rex, keyAt(key))).toMatchObject({ replayed: true, pet: { id } });
  await storage.close();
};

/**
 * A storage whose file was written whole after 5,000 keyed creates, then 7,000 more, whose
 * whole write waits, between its preparation and its copy, until `held` opens.
 */
const holdWholeWriteAfterKeyedCreates = async () => {
  const file = tempDataFile();
  const { fs: controlled, held, arm, waiting } = holdingWholeWrites();
  const replace = vi.spyOn(DurableTextFile.prototype, 'replace');
  const storage = await openJsonFileStorageOn({ file, journalMinBytes: 0 }, controlled);
  const created = new Map<string, number>();
  await createKeyed(storage, 'first', 5_000, created);
  await settled(replace);
  const writesBefore = replace.mock.calls.length;
  arm();
  await createKeyed(storage, 'then', 7_000, created);
  await until(() => waiting() === 1, 'a whole write began');
  return { file, storage, created, held, replace, writesBefore };
};

describe('A whole write copies what the file and the journal already hold', () => {
  it("Should copy the last whole write's animals and keys from the file, and the journal's keys, a megabyte at a time", {
    timeout: 60_000,
  }, async () => {
    const file = tempDataFile();
    const replace = vi.spyOn(DurableTextFile.prototype, 'replace');
    const ownReads = vi.spyOn(DurableTextFile.prototype, 'readOwnBytes');
    const journalReads = vi.spyOn(DurableTextFile.prototype, 'readJournalBytes');
    // From the smallest journal on: a whole write each time the journal outgrows the file.
    const storage = await openJsonFileStorage({ file, journalMinBytes: 0 });
    const created = new Map<string, number>();
    await createKeyed(storage, 'first', 14_000, created);
    await settled(replace);
    const before = fs.statSync(file).size;
    const readsBefore = ownReads.mock.calls.length;
    // More than the file holds, so the journal outgrows it again: at least one more whole write.
    const writesBefore = replace.mock.calls.length;
    await createKeyed(storage, 'then', 18_000, created);
    await settled(replace);
    expect(replace.mock.calls.length).toBeGreaterThan(writesBefore);
    await storage.close();

    // The later whole writes read the earlier ones' bytes back (more than the first file
    // held: its animals, two chunks of 4,096, and its keys), never more than a megabyte at once.
    const readBack = ownReads.mock.calls.slice(readsBefore).reduce((sum, [, length]) => sum + length, 0);
    expect(readBack).toBeGreaterThan(before);
    for (const [, length] of ownReads.mock.calls) expect(length).toBeLessThanOrEqual(PIECE);
    // The file was large enough for a copy to be cut into pieces.
    expect(ownReads.mock.calls.some(([, length]) => length === 1024 * 1024)).toBe(true);
    expect(journalReads.mock.calls.length).toBeGreaterThan(0);
    for (const [, , length] of journalReads.mock.calls) expect(length).toBeLessThanOrEqual(PIECE);
    await expectWholeAndEveryKey(file, created);
  });

  it('Should start again on an edit saved while a whole write copies the file, never mixing the two', { timeout: 60_000 }, async () => {
    const { file, storage, created, held, replace, writesBefore } = await holdWholeWriteAfterKeyedCreates();

    // Someone saves an edit by rename: the file as it was, with the first animal renamed.
    const edited = JSON.parse(fs.readFileSync(file, 'utf8')) as { pets: { name: string }[] };
    edited.pets[0]!.name = 'Edited';
    fs.writeFileSync(`${file}.edit`, JSON.stringify(edited));
    fs.renameSync(`${file}.edit`, file);
    held.open();
    await expect(replace.mock.results[writesBefore]!.value).rejects.toBeInstanceOf(FileChangedError);
    await until(() => (storage.get(1) as { name: string } | undefined)?.name === 'Edited', 'the edit was read');
    await storage.close();
    // The edit, with the journal's creates after it (as documented), written whole by the stop.
    expect(parsePetFile(fs.readFileSync(file, 'utf8'), file).pets[0]!.name).toBe('Edited');
    await expectWholeAndEveryKey(file, created);
  });

  it('Should copy the keys at a stop that comes while a whole write runs, not encode them all again', { timeout: 60_000 }, async () => {
    const { file, storage, created, held } = await holdWholeWriteAfterKeyedCreates();
    // Creates beside the whole write: its document lacks them, so the stop writes the file whole again.
    await createKeyed(storage, 'last', 300, created);
    // A key is made an object again only to be encoded (or looked up, which the stop does not do).
    const keysRead = vi.spyOn(IdempotencyKeys.prototype, 'at');
    const stopped = storage.close();
    held.open();
    await stopped;
    // The 12,300 keys came from the file the whole write left and from their journal lines.
    expect(keysRead.mock.calls.length).toBeLessThan(300);
    await expectWholeAndEveryKey(file, created);
  });

  it('Should write the next whole write right after one failed once its file was in place', { timeout: 60_000 }, async () => {
    const file = tempDataFile();
    let failFolderSync = false;
    // Once armed, the fsync of the folder after a whole write's rename fails: the new file is in place, its write failed.
    const controlled: FileSystem = {
      ...nodeFileSystem,
      open: (async (name: string, flags?: string | number, mode?: number) => {
        const handle = await nodeFileSystem.open(name, flags, mode);
        if (!failFolderSync || path.resolve(name) !== path.dirname(path.resolve(file))) return handle;
        failFolderSync = false;
        return Object.assign(Object.create(handle) as typeof handle, {
          sync: async () => Promise.reject(Object.assign(new Error('EIO: i/o error, fsync'), { code: 'EIO' })),
          close: () => handle.close(),
        });
      }) as FileSystem['open'],
    };
    const replace = vi.spyOn(DurableTextFile.prototype, 'replace');
    const storage = await openJsonFileStorageOn({ file, journalMinBytes: 0 }, controlled);
    const created = new Map<string, number>();
    await createKeyed(storage, 'first', 9_000, created);
    await settled(replace);
    failFolderSync = true;
    const writesBefore = replace.mock.calls.length;
    await createKeyed(storage, 'then', 12_000, created);
    await settled(replace);
    const outcomes = await Promise.allSettled(replace.mock.results.slice(writesBefore).map(({ value }) => value as Promise<void>));
    expect(outcomes[0]!.status).toBe('rejected');
    // The failed write's file is in place, its bytes elsewhere than the one before's: the next writes must not copy from where those lay.
    await createKeyed(storage, 'last', 1_000, created);
    await storage.close();
    await expectWholeAndEveryKey(file, created);
  });
});
