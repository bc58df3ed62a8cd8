/** @module copyPets moves a whole catalogue between a data file and PostgreSQL, and back, losing nothing. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { copyPets } from '../../storage/copyPets.js';
import { DataFileLockedError } from '../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../storage/jsonFile/openJsonFileStorage.js';
import { PetFileSerializer } from '../../storage/jsonFile/write/PetFileSerializer.js';
import { TargetNotEmptyError } from '../../storage/PetContent.js';
import { openPostgresStorage } from '../../storage/postgres/openPostgresStorage.js';
import { readDataFile } from '../support/serverProcess.js';
import { tempFolder } from '../support/tempFolder.js';
import { useTestDatabase } from '../support/testDatabase.js';

const database = useTestDatabase();

const day = 86_400_000;
const now = Date.parse('2026-11-21T12:00:00Z');

/** A data file with gaps in its ids (animals removed by hand), a next id above the last, and keys live and expired. */
const writeSourceFile = (file: string) => {
  const pets: Pet[] = [
    { id: 1, name: 'Rex', categoryId: 3, status: 'available' },
    { id: 2, name: '  Bébé 🐱 «Minou»  ', categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' },
    { id: 5, name: 'Tom "the cat" \\o/', categoryId: 9, status: 'sold' },
    ...Array.from(
      { length: 20_000 },
      (_, offset): Pet => ({ id: 6 + offset, name: `Animal ${6 + offset}`, categoryId: 1, status: 'sold' }),
    ),
  ];
  const idempotencyKeys: StoredIdempotencyKey[] = [
    { scope: 'a1b2c3d4e5f6', key: 'expired', fingerprint: 'f-1', petId: 1, createdAt: now - 2 * day, expiresAt: now - day },
    { scope: 'a1b2c3d4e5f6', key: 'order-7', fingerprint: 'f-2', petId: 5, createdAt: now, expiresAt: now + day },
    { scope: 'ffffffffffff', key: 'order-7', fingerprint: 'f-3', petId: 6, createdAt: now + 1, expiresAt: now + day + 1 },
  ];
  const data = { format: 2 as const, nextId: 20_010, pets, idempotencyKeys };
  fs.writeFileSync(file, Buffer.concat(new PetFileSerializer().serialize(data)));
  return data;
};

describe('copyPets between a data file and PostgreSQL', () => {
  it('Should carry every animal, the next id and the keys from a file to PostgreSQL and back, identical', async () => {
    const folder = tempFolder();
    const source = path.join(folder, 'animals.json');
    const original = writeSourceFile(source);
    const schema = database.freshSchema();

    const there = await copyPets({ from: source, to: database.url(), schema });
    expect(there).toMatchObject({ pets: original.pets.length, idempotencyKeys: 3, nextId: 20_010, from: source });
    expect(there.to).toBe(`${database.url()} (schema ${schema})`);

    const back = path.join(folder, 'nested', 'back.json');
    const returned = await copyPets({ from: database.url(), to: back, schema });
    expect(returned).toMatchObject({ pets: original.pets.length, idempotencyKeys: 3, nextId: 20_010, to: back });
    expect(readDataFile(back)).toEqual(original);
  });

  it('Should leave PostgreSQL serving the copied catalogue: ids carry on from the next id, keys replay', async () => {
    const source = path.join(tempFolder(), 'animals.json');
    writeSourceFile(source);
    const schema = database.freshSchema();
    await copyPets({ from: source, to: database.url(), schema });
    // Analysed as it was loaded: its pages walk their own indexes from the first request.
    const { rows } = await database
      .admin()
      .query('SELECT relname FROM pg_stat_user_tables WHERE schemaname = $1 AND last_analyze IS NOT NULL ORDER BY relname', [schema]);
    expect(rows.map((row) => row.relname)).toEqual(['idempotency_keys', 'pets']);
    const storage = await openPostgresStorage({ connectionString: database.url(), schema });
    expect(await storage.get(2)).toEqual({ id: 2, name: '  Bébé 🐱 «Minou»  ', categoryId: Number.MAX_SAFE_INTEGER, status: 'pending' });
    expect((await storage.list({ after: 0, limit: 3, status: 'sold' })).map((pet) => pet.id)).toEqual([5, 6, 7]);
    expect((await storage.create({ name: 'New', categoryId: 1, status: 'available' })).id).toBe(20_010);
    const replay = await storage.createIdempotent(
      { name: 'Other', categoryId: 1, status: 'available' },
      { scope: 'a1b2c3d4e5f6', key: 'order-7', fingerprint: 'f-9', createdAt: now + 1000, expiresAt: now + day + 1000 },
    );
    expect(replay).toMatchObject({ replayed: true, pet: { id: 5, name: 'Tom "the cat" \\o/' }, stored: { fingerprint: 'f-2' } });
    await storage.close();
  });

  it('Should refuse a PostgreSQL target that holds a catalogue, changing nothing, unless told to replace it', async () => {
    const source = path.join(tempFolder(), 'animals.json');
    writeSourceFile(source);
    const schema = database.freshSchema();
    const storage = await openPostgresStorage({ connectionString: database.url(), schema });
    await storage.create({ name: 'Already here', categoryId: 1, status: 'sold' });

    const refused = copyPets({ from: source, to: database.url(), schema });
    await expect(refused).rejects.toThrow(TargetNotEmptyError);
    await expect(refused).rejects.toThrow(/already holds a catalogue \(1 animals, next id 2\); nothing was copied/);
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([{ id: 1, name: 'Already here', categoryId: 1, status: 'sold' }]);

    await copyPets({ from: source, to: database.url(), schema, replace: true });
    expect((await storage.list({ after: 0, limit: 2 })).map((pet) => pet.name)).toEqual(['Rex', '  Bébé 🐱 «Minou»  ']);
    await storage.close();
  });

  it('Should refuse a data file target that holds a catalogue unless told to replace it, and one a server owns', async () => {
    const folder = tempFolder();
    const source = path.join(folder, 'animals.json');
    const original = writeSourceFile(source);
    const target = path.join(folder, 'target.json');
    const storage = await openJsonFileStorage({ file: target });
    await storage.create({ name: 'Kept', categoryId: 1, status: 'sold' });
    await expect(copyPets({ from: source, to: target })).rejects.toThrow(DataFileLockedError);
    await storage.close();

    const before = fs.readFileSync(target, 'utf8');
    await expect(copyPets({ from: source, to: target })).rejects.toThrow(TargetNotEmptyError);
    expect(fs.readFileSync(target, 'utf8')).toBe(before);
    await copyPets({ from: source, to: target, replace: true });
    expect(readDataFile(target)).toEqual(original);
  });

  it('Should refuse to copy a place onto itself, and say when the source file is missing', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    await expect(copyPets({ from: file, to: `${path.dirname(file)}/./animals.json` })).rejects.toThrow(/same place/);
    await expect(copyPets({ from: file, to: database.url(), schema: database.freshSchema() })).rejects.toThrow(
      `The data file ${file} does not exist.`,
    );
  });
});
