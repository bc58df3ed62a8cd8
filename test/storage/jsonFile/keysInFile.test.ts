import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { IdempotencyKey, StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { journalLines } from './readDataFile.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

/** A key of the API key `a1b2c3`, arriving at `createdAt` and living `lifetime` milliseconds. */
const keyAt = (key: string, createdAt: number, lifetime = 86_400_000): IdempotencyKey => ({
  scope: 'a1b2c3',
  key,
  fingerprint: 'digest-of-payload',
  createdAt,
  expiresAt: createdAt + lifetime,
});

/** A format-2 file as the previous release wrote it: one animal, then one key, per line. */
const formatTwo = (nextId: number, pets: Pet[], keys: StoredIdempotencyKey[]): string => {
  const lines = (items: unknown[]) => (items.length === 0 ? '' : `\n${items.map((item) => JSON.stringify(item)).join(',\n')}\n`);
  const inFile = keys.map(({ createdAt, expiresAt, ...key }) => ({
    scope: key.scope,
    key: key.key,
    fingerprint: key.fingerprint,
    petId: key.petId,
    createdAt: new Date(createdAt).toISOString(),
    expiresAt: new Date(expiresAt).toISOString(),
  }));
  return `{"format":2,"nextId":${nextId},"pets":[${lines(pets)}],"idempotencyKeys":[${lines(inFile)}]}\n`;
};

describe('Idempotency-Keys in the data file', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('Should read a file the previous release wrote, and write it back the same with the new animal and key at their ends', async () => {
    const file = tempDataFile();
    const now = Date.now();
    const pets: Pet[] = [
      { id: 1, name: 'Kept', categoryId: 1, status: 'sold' },
      { id: 4, name: 'Also "kept"', categoryId: 2, status: 'pending' },
    ];
    const keys = [
      { ...keyAt('first', now - 1_000), petId: 1 },
      { ...keyAt('second', now - 500), petId: 4 },
    ];
    fs.writeFileSync(file, formatTwo(5, pets, keys));
    const storage = await openJsonFileStorage({ file });
    expect(await storage.createIdempotent(rex, keyAt('second', now))).toMatchObject({ pet: pets[1], replayed: true });
    const created = await storage.createIdempotent(rex, keyAt('third', now));
    await storage.close();
    expect(fs.readFileSync(file, 'utf8')).toBe(formatTwo(6, [...pets, created.pet], [...keys, created.stored]));
  });

  it('Should let expired keys leave by the sweep, writing nothing for them, and the file when it is next written whole', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'Date'], now: Date.parse('2026-11-25T00:00:00Z') });
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file, keySweep: { everyMilliseconds: 100, atMost: 2 } });
    for (const name of ['a', 'b', 'c']) await storage.createIdempotent(rex, keyAt(name, Date.now(), 1_000));
    const keysInJournal = () => journalLines(file).flatMap((line) => line.idempotencyKeys.map((stored) => (stored as { key: string }).key));
    vi.advanceTimersByTime(900);
    await storage.create(rex);
    expect(keysInJournal()).toEqual(['a', 'b', 'c']);
    // The tick at their expiry forgets two of the three, the next tick the third: no write carries them again.
    vi.advanceTimersByTime(100);
    await storage.create(rex);
    vi.advanceTimersByTime(100);
    await storage.create(rex);
    expect(keysInJournal()).toEqual(['a', 'b', 'c']);
    expect(journalLines(file)).toHaveLength(6);
    await storage.close();
    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(onDisk.idempotencyKeys).toEqual([]);
    expect(onDisk.pets).toHaveLength(6);
  });
});
