import fs from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { PetFileJson } from '../../../storage/jsonFile/format/PetFileData.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { describeStorageContract } from '../contract.js';
import { readDataFile } from './readDataFile.js';

describeStorageContract('JSON-file storage', () => openJsonFileStorage({ file: tempDataFile() }));

describe('JSON-file storage on disk', () => {
  it('Should have every acknowledged animal in the file, in the documented format, when create resolves', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    const first = await storage.create({ name: 'Rex', categoryId: 3, status: 'available' });
    // Read while the storage is still open: resolution means "on disk" (the document and its journal), not "on close".
    const onDisk = v.parse(PetFileJson, readDataFile(file));
    expect(onDisk).toEqual({ format: 2, nextId: 2, pets: [first], idempotencyKeys: [] });
    await storage.close();
    // After a clean stop the document alone holds it all, and no journal is left beside it.
    expect(v.parse(PetFileJson, JSON.parse(fs.readFileSync(file, 'utf8')))).toEqual(onDisk);
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
  });

  it('Should keep animals and continue ids without reuse after a reopen', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    await Promise.all(['A', 'B', 'C'].map((name) => storage.create({ name, categoryId: 1, status: 'sold' })));
    await storage.close();

    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.list({ after: 0, limit: 10, status: 'sold' })).toEqual([
      { id: 1, name: 'A', categoryId: 1, status: 'sold' },
      { id: 2, name: 'B', categoryId: 1, status: 'sold' },
      { id: 3, name: 'C', categoryId: 1, status: 'sold' },
    ]);
    expect((await reopened.create({ name: 'D', categoryId: 1, status: 'sold' })).id).toBe(4);
    await reopened.close();
  });

  it('Should continue from nextId, not from the highest id, so ids of animals removed by hand are not reused', async () => {
    const file = tempDataFile();
    fs.writeFileSync(file, '{"format":1,"nextId":8,"pets":[{"id":2,"name":"Kept","categoryId":1,"status":"sold"}]}');
    const storage = await openJsonFileStorage({ file });
    expect((await storage.create({ name: 'New', categoryId: 1, status: 'sold' })).id).toBe(8);
    await storage.close();
  });

  it('Should report the absolute path of its file', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    expect(storage.file).toBe(file);
    await storage.close();
  });

  it('Should refuse creates after close instead of losing them', async () => {
    const storage = await openJsonFileStorage({ file: tempDataFile() });
    await storage.close();
    await expect(storage.create({ name: 'Late', categoryId: 1, status: 'sold' })).rejects.toMatchObject({
      code: 'storage_unavailable',
    });
  });
});

describe('JSON-file storage and Idempotency-Keys', () => {
  const key = (name: string, createdAt = Date.parse('2026-11-21T12:00:00Z')) => ({
    scope: 'a1b2c3d4e5f6',
    key: name,
    fingerprint: 'digest-of-payload',
    createdAt,
    expiresAt: createdAt + 86_400_000,
  });
  const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

  it('Should write a key in the same write as its animal, and find it after a reopen', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    const created = await storage.createIdempotent(rex, key('order-1'));
    // On disk as soon as the create resolves, beside the animal.
    const expected = { format: 2, nextId: 2, pets: [created.pet], idempotencyKeys: [{ ...key('order-1'), petId: 1 }] };
    expect(v.parse(PetFileJson, readDataFile(file))).toEqual(expected);
    await storage.close();
    expect(v.parse(PetFileJson, JSON.parse(fs.readFileSync(file, 'utf8')))).toEqual(expected);
    expect(fs.readFileSync(file, 'utf8')).toContain('"createdAt":"2026-11-21T12:00:00.000Z"');

    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.createIdempotent(rex, key('order-1', Date.parse('2026-11-21T13:00:00Z')))).toMatchObject({
      pet: created.pet,
      replayed: true,
    });
    expect(await reopened.list({ after: 0, limit: 10 })).toHaveLength(1);
    await reopened.close();
  });

  it('Should read a format-1 file and upgrade it to format 2 at the next write, losing nothing', async () => {
    const file = tempDataFile();
    const old =
      '{"format":1,"nextId":9,"pets":[{"id":3,"name":"Kept","categoryId":1,"status":"sold"},{"id":7,"name":"Too","categoryId":2,"status":"pending"}]}';
    fs.writeFileSync(file, old);
    const storage = await openJsonFileStorage({ file });
    // Opening alone changes nothing.
    expect(fs.readFileSync(file, 'utf8')).toBe(old);
    const created = await storage.create({ name: 'New', categoryId: 1, status: 'available' });
    expect(created.id).toBe(9);
    const expected = { format: 2, nextId: 10, pets: [...JSON.parse(old).pets, created], idempotencyKeys: [] };
    expect(readDataFile(file)).toEqual(expected);
    await storage.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual(expected);
  });

  it('Should leave expired keys out of the file when it is next written whole, writing nothing for them', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    await storage.createIdempotent(rex, key('old', Date.parse('2026-11-01T00:00:00Z')));
    await storage.createIdempotent(rex, key('new', Date.parse('2026-11-21T12:00:00Z')));
    await storage.close();
    const onDisk = v.parse(PetFileJson, JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(onDisk.idempotencyKeys.map((stored) => stored.key)).toEqual(['new']);
    expect(onDisk.pets).toHaveLength(2);
  });

  it('Should refuse a file whose key is not well formed, naming it', async () => {
    const file = tempDataFile();
    const badKey = {
      scope: 'a1b2c3d4e5f6',
      key: 'k',
      fingerprint: 'f',
      petId: 1,
      createdAt: 'yesterday',
      expiresAt: '2026-11-22T00:00:00Z',
    };
    fs.writeFileSync(
      file,
      JSON.stringify({ format: 2, nextId: 2, pets: [{ id: 1, name: 'A', categoryId: 1, status: 'sold' }], idempotencyKeys: [badKey] }),
    );
    await expect(openJsonFileStorage({ file })).rejects.toThrow(/idempotencyKeys\[0\]\.createdAt must be an ISO 8601 date and time/);
  });
});
