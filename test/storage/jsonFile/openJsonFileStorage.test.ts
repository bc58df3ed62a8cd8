import fs from 'node:fs';
import * as v from 'valibot';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { PetFile } from '../../../storage/jsonFile/PetFileData.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { describeStorageContract } from '../contract.js';

describeStorageContract('JSON-file storage', () => openJsonFileStorage({ file: tempDataFile() }));

describe('JSON-file storage on disk', () => {
  it('Should have every acknowledged animal in the file, in the documented format, when create resolves', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    const first = await storage.create({ name: 'Rex', categoryId: 3, status: 'available' });
    // Read while the storage is still open: resolution means "on disk", not "on close".
    const onDisk = v.parse(PetFile, JSON.parse(fs.readFileSync(file, 'utf8')));
    expect(onDisk).toEqual({ format: 1, nextId: 2, pets: [first] });
    await storage.close();
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
