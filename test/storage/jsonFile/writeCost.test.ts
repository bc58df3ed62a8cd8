import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { PetFileSerializer } from '../../../storage/jsonFile/write/PetFileSerializer.js';
import { tempFolder } from '../../support/tempFolder.js';

/** Node's file functions, counting every byte written through a handle they open. */
const countingFileSystem = () => {
  const counted = { bytes: 0 };
  const count = (handle: FileHandle): FileHandle =>
    new Proxy(handle, {
      get(target, key) {
        const value = Reflect.get(target, key, target) as unknown;
        if (typeof value !== 'function') return value;
        if (key === 'write') {
          return async (buffer: Uint8Array, offset = 0, length = buffer.byteLength - offset, position?: number) => {
            const result = await target.write(buffer, offset, length, position);
            counted.bytes += result.bytesWritten;
            return result;
          };
        }
        if (key === 'writev') {
          return async (buffers: Uint8Array[], position?: number) => {
            const result = await target.writev(buffers, position);
            counted.bytes += result.bytesWritten;
            return result;
          };
        }
        if (key === 'writeFile') throw new Error('writeFile is not counted');
        return value.bind(target);
      },
    });
  const fs: FileSystem = {
    ...nodeFileSystem,
    open: (async (...args: Parameters<FileSystem['open']>) => count(await nodeFileSystem.open(...args))) as FileSystem['open'],
  };
  return { fs, counted };
};

/** A data file of `animals` animals and `keys` live Idempotency-Keys. */
const seededFile = (animals: number, keys: number): string => {
  const file = path.join(tempFolder(), 'animals.json');
  const now = Date.now();
  const pets: Pet[] = Array.from({ length: animals }, (_, offset) => ({
    id: offset + 1,
    name: `Animal ${offset + 1}`,
    categoryId: 1,
    status: 'sold',
  }));
  const idempotencyKeys: StoredIdempotencyKey[] = Array.from({ length: keys }, (_, offset) => ({
    scope: 'a1b2c3d4e5f6',
    key: `seeded-${offset}-3f1c2a9e-0b7d-4c1e-9a2b`,
    fingerprint: 'Qm9XcE1hR0Z5ZGlnZXN0LW9mLXBheWxvYWQ',
    petId: (offset % animals) + 1,
    createdAt: now - 1_000,
    expiresAt: now + 86_400_000,
  }));
  fs.writeFileSync(file, Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: animals + 1, pets, idempotencyKeys })));
  return file;
};

/** Bytes written to the storage by each of 40 creates one after another (20 plain, 20 keyed), on average and at most. */
const writeCost = async (animals: number, keys: number) => {
  const { fs: counting, counted } = countingFileSystem();
  const storage = await openJsonFileStorageOn({ file: seededFile(animals, keys) }, counting);
  const costs: number[] = [];
  for (let count = 0; count < 40; count++) {
    const before = counted.bytes;
    const newPet = { name: `New ${count}`, categoryId: 2, status: 'available' } as const;
    if (count % 2 === 0) await storage.create(newPet);
    else {
      const createdAt = Date.now();
      const key = {
        scope: 'a1b2c3d4e5f6',
        key: `new-${count}-8e03978e-40d5-43e8`,
        fingerprint: 'Qk9vVWJ6cE1hR0Z5',
        createdAt,
        expiresAt: createdAt + 86_400_000,
      };
      await storage.createIdempotent(newPet, key);
    }
    costs.push(counted.bytes - before);
  }
  await storage.close();
  return { average: costs.reduce((sum, cost) => sum + cost, 0) / costs.length, most: Math.max(...costs) };
};

describe('what a create costs the disk', () => {
  it('Should write at most 32 KiB a create, plain or keyed, at 100,000 animals and 100,000 live keys, no more than at 1,000', {
    timeout: 60_000,
  }, async () => {
    const small = await writeCost(1_000, 1_000);
    const large = await writeCost(100_000, 100_000);
    expect(small.most).toBeGreaterThan(100); // the count sees the writes: each create's line
    expect(large.most).toBeLessThanOrEqual(32 * 1024);
    expect(large.average).toBeLessThanOrEqual(2 * small.average + 8 * 1024);
    expect(large.most).toBeLessThanOrEqual(2 * small.most + 8 * 1024);
  });
});
