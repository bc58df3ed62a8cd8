import fs from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import type { IdempotencyKey } from '../../../core/PetStorage.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { KeyLines } from '../../../storage/jsonFile/write/KeyLines.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { holdingWholeWrites, until } from './controlledFileSystem.js';
import { journalLines } from './readDataFile.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

const keyAt = (key: string): IdempotencyKey => {
  const createdAt = Date.now();
  return { scope: 'a1b2c3', key, fingerprint: 'digest-of-payload', createdAt, expiresAt: createdAt + 86_400_000 };
};

/** Resolves with `promise`, or rejects if it takes longer than `milliseconds`. */
const within = <T>(promise: Promise<T>, milliseconds: number, what: string) =>
  Promise.race([
    promise,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} waited ${milliseconds} ms`)), milliseconds)),
  ]);

const documentOf = (file: string) =>
  JSON.parse(fs.readFileSync(file, 'utf8')) as { pets: { id: number }[]; idempotencyKeys: { key: string }[] };

/** Opens the file again (as a start after a crash would) and checks every key replays its animal, each animal there once. */
const expectEveryKeyOnce = async (file: string, created: Map<string, number>) => {
  const storage = await openJsonFileStorage({ file });
  const ids = (await storage.list({ after: 0, limit: 1000 })).map(({ id }) => id);
  expect(ids).toEqual([...created.values()].sort((a, b) => a - b));
  for (const [key, id] of created) expect(await storage.createIdempotent(rex, keyAt(key))).toMatchObject({ replayed: true, pet: { id } });
  await storage.close();
};

describe('A whole write made alongside creates', () => {
  it('Should answer creates while the file is written whole, and keep in the journal only those', async () => {
    const file = tempDataFile();
    const { fs: controlledFs, held, arm, waiting } = holdingWholeWrites();
    // From the smallest journal on: the first create's line outgrows the empty document.
    const storage = await openJsonFileStorageOn({ file, journalMinBytes: 0 }, controlledFs);
    arm();
    const created = new Map<string, number>();
    created.set('before', (await storage.createIdempotent(rex, keyAt('before'))).pet.id);
    await until(() => waiting() === 1, 'a whole write began');

    // The whole write waits; creates do not.
    const during = await within(
      Promise.all(Array.from({ length: 20 }, (_, at) => storage.createIdempotent(rex, keyAt(`during-${at}`)))),
      2_000,
      'creates during a whole write',
    );
    for (const [at, { pet }] of during.entries()) created.set(`during-${at}`, pet.id);
    expect(documentOf(file).pets).toEqual([]);

    held.open();
    await until(() => documentOf(file).pets.length === 1, 'the whole write');
    await until(() => journalLines(file).flatMap(({ pets }) => pets).length === 20, 'the journal kept only the later lines');
    expect(documentOf(file).idempotencyKeys.map(({ key }) => key)).toEqual(['before']);
    const copied = vi.spyOn(KeyLines.prototype, 'append');
    created.set('after', (await storage.createIdempotent(rex, keyAt('after'))).pet.id);
    // The next whole write copies the keys that came during the last one from the journal
    // that replaced theirs (keys 1 to 20, after the document's first), not encoding them again.
    await until(() => documentOf(file).pets.length === 22, 'the next whole write');
    expect(copied.mock.calls.some(([, { start, end }], call) => start === 1 && end === 21 && copied.mock.results[call]!.value)).toBe(true);
    copied.mockRestore();
    await storage.close();
    expect(documentOf(file).pets).toHaveLength(22);
    await expectEveryKeyOnce(file, created);
  });

  it('Should lose nothing and add nothing twice when the journal cannot be cut after the file was written whole', async () => {
    const file = tempDataFile();
    const { fs: controlledFs, held, arm, waiting } = holdingWholeWrites({ failJournalRename: true });
    const storage = await openJsonFileStorageOn({ file, journalMinBytes: 0 }, controlledFs);
    arm();
    const created = new Map<string, number>();
    created.set('before', (await storage.createIdempotent(rex, keyAt('before'))).pet.id);
    await until(() => waiting() === 1, 'a whole write began');
    for (let at = 0; at < 5; at++) created.set(`during-${at}`, (await storage.createIdempotent(rex, keyAt(`during-${at}`))).pet.id);
    held.open();
    await until(() => documentOf(file).pets.length === 1, 'the whole write');
    // The new document beside the whole journal, as a crash between the two would leave them.
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(journalLines(file).flatMap(({ pets }) => pets)).toHaveLength(6);
    fs.copyFileSync(file, `${file}.copy`);
    fs.copyFileSync(`${file}.journal`, `${file}.copy.journal`);
    await storage.close();
    await expectEveryKeyOnce(`${file}.copy`, created);
    await expectEveryKeyOnce(file, created);
  });
});
