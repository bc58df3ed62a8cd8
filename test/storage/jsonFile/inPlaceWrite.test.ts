import fs from 'node:fs';
import { open } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { DataFileError } from '../../../storage/jsonFile/DataFileError.js';
import { type FileSystem, nodeFileSystem } from '../../../storage/jsonFile/FileSystem.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { PetFileSerializer } from '../../../storage/jsonFile/PetFileSerializer.js';
import { type InPlacePlan, planInPlaceWrite } from '../../../storage/jsonFile/planInPlaceWrite.js';
import { decodeUndoRecord, encodeUndoRecord } from '../../../storage/jsonFile/UndoRecord.js';
import { recoverInPlaceWrite, undoPath } from '../../../storage/jsonFile/writeInPlace.js';
import { tempFolder } from '../../support/tempFolder.js';

/** The bytes a plan's ranges make of `old`, as the write in place makes them on disk. */
const apply = (old: Buffer, plan: InPlacePlan): Buffer => {
  const result = Buffer.alloc(Math.max(old.byteLength, plan.newLength));
  old.copy(result);
  for (const { offset, after } of plan.ranges) Buffer.concat(after).copy(result, offset);
  return result.subarray(0, plan.newLength);
};

const chunksOf = (bytes: Buffer, cuts: number[]): Buffer[] => {
  const points = [...new Set([0, ...cuts.map((cut) => cut % (bytes.byteLength + 1)), bytes.byteLength])].sort((a, b) => a - b);
  return points.slice(1).map((end, index) => bytes.subarray(points[index], end));
};

const petsFile = (count: number): Buffer => {
  const pets: Pet[] = Array.from({ length: count }, (_, index) => ({
    id: index + 1,
    name: `Seeded ${index + 1}`,
    categoryId: 1,
    status: 'sold',
  }));
  return Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: count + 1, pets, idempotencyKeys: [] }));
};

describe('planning a write in place', () => {
  it('Should turn the old bytes into the new ones, whatever the chunks and the changes', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ maxLength: 300 }),
        fc.uint8Array({ maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        fc.array(fc.nat(), { maxLength: 8 }),
        (oldBytes, newBytes, oldCuts, newCuts) => {
          const old = Buffer.from(oldBytes);
          const plan = planInPlaceWrite(chunksOf(old, oldCuts), chunksOf(Buffer.from(newBytes), newCuts), Number.POSITIVE_INFINITY)!;
          expect(apply(old, plan)).toEqual(Buffer.from(newBytes));
          expect(plan.oldLength).toBe(old.byteLength);
        },
      ),
    );
  });

  it('Should write only the new id and the new animals, not the animals already in the file', () => {
    const serializer = new PetFileSerializer();
    const pets: Pet[] = Array.from({ length: 10_000 }, (_, index) => ({ id: index + 1, name: 'Luna', categoryId: 1, status: 'sold' }));
    const before = serializer.serialize({ format: 2, nextId: 10_001, pets, idempotencyKeys: [] });
    pets.push({ id: 10_001, name: 'Rex', categoryId: 2, status: 'available' });
    const after = serializer.serialize({ format: 2, nextId: 10_002, pets, idempotencyKeys: [] });
    const plan = planInPlaceWrite(before, after, Number.POSITIVE_INFINITY)!;
    expect(plan.bytes).toBeLessThan(300);
    expect(apply(Buffer.concat(before), plan).equals(Buffer.concat(after))).toBe(true);
  });

  it('Should write only the new animals when the last ones fill a chunk the serialiser keeps whole', () => {
    const serializer = new PetFileSerializer();
    const pets: Pet[] = Array.from({ length: 4_095 }, (_, index) => ({ id: index + 1, name: 'Luna', categoryId: 1, status: 'sold' }));
    const before = serializer.serialize({ format: 2, nextId: 4_096, pets, idempotencyKeys: [] });
    pets.push(
      { id: 4_096, name: 'Rex', categoryId: 2, status: 'available' },
      { id: 4_097, name: 'Max', categoryId: 2, status: 'available' },
    );
    const after = serializer.serialize({ format: 2, nextId: 4_098, pets, idempotencyKeys: [] });
    const plan = planInPlaceWrite(before, after, Number.POSITIVE_INFINITY)!;
    expect(plan.bytes).toBeLessThan(400);
    expect(apply(Buffer.concat(before), plan).equals(Buffer.concat(after))).toBe(true);
  });

  it('Should give up past the limit, so the file is replaced whole instead', () => {
    expect(planInPlaceWrite([Buffer.from('a'.repeat(100))], [Buffer.from('b'.repeat(100))], 150)).toBeUndefined();
  });
});

describe('the undo record', () => {
  const plan = planInPlaceWrite([Buffer.from('{"n":1,"x":[1]}\n')], [Buffer.from('{"n":2,"x":[1,2]}\n')], 1000)!;

  it('Should read back what was written', () => {
    const record = decodeUndoRecord(Buffer.concat(encodeUndoRecord(42n, plan)))!;
    expect(record.inode).toBe('42');
    expect(record.oldLength).toBe(16);
    expect(record.newLength).toBe(18);
    expect(record.ranges.map(({ offset }) => offset)).toEqual(plan.ranges.map(({ offset }) => offset));
  });

  it('Should know a torn or damaged record, and read one followed by older bytes', () => {
    const bytes = Buffer.concat(encodeUndoRecord(42n, plan));
    for (let length = 0; length < bytes.byteLength; length++) expect(decodeUndoRecord(bytes.subarray(0, length))).toBeUndefined();
    const flipped = Buffer.from(bytes);
    flipped[flipped.byteLength - 40]! ^= 1;
    expect(decodeUndoRecord(flipped)).toBeUndefined();
    expect(decodeUndoRecord(Buffer.concat([bytes, Buffer.from('older record')]))).toBeDefined();
  });
});

describe('opening a file after a crash in the middle of a write in place', () => {
  /** A file holding `old`, and the undo record of the write to `next`; answers the file's path and the plan. */
  const prepare = (old: Buffer, next: Buffer) => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, old);
    const plan = planInPlaceWrite(chunksOf(old, [40, 200]), chunksOf(next, [41, 200]), Number.POSITIVE_INFINITY)!;
    fs.writeFileSync(undoPath(file), Buffer.concat(encodeUndoRecord(BigInt(fs.statSync(file).ino), plan)));
    return { file, plan };
  };
  const recover = async (file: string) => {
    const handle = await open(file, 'r+');
    try {
      return await recoverInPlaceWrite(nodeFileSystem, file, handle);
    } finally {
      await handle.close();
    }
  };
  const old = petsFile(20);
  const next = petsFile(23);

  it('Should put back the file as it was before a torn write, whatever part of it reached the disk', async () => {
    const tornStates = [
      (plan: InPlacePlan) => apply(old, { ...plan, ranges: plan.ranges.slice(0, 1), newLength: old.byteLength }),
      (plan: InPlacePlan) => apply(old, plan).subarray(0, old.byteLength + 10),
      (plan: InPlacePlan) => Buffer.concat([apply(old, plan).subarray(0, old.byteLength), Buffer.alloc(plan.newLength - old.byteLength)]),
      () => old,
    ];
    for (const torn of tornStates) {
      const { file, plan } = prepare(old, next);
      fs.writeFileSync(file, torn(plan));
      expect(await recover(file)).toBe('undone');
      expect(fs.readFileSync(file)).toEqual(old);
      expect(fs.existsSync(undoPath(file))).toBe(false);
    }
  });

  it('Should keep a write that completed', async () => {
    const { file, plan } = prepare(old, next);
    fs.writeFileSync(file, apply(old, plan));
    expect(await recover(file)).toBe('written');
    expect(fs.readFileSync(file)).toEqual(next);
    expect(fs.existsSync(undoPath(file))).toBe(false);
  });

  it('Should leave alone a file someone else wrote since, and ignore a torn record', async () => {
    // An edit that removed animals: neither the old file nor the new one, nor a mix of them.
    const shorter = petsFile(19);
    const { file } = prepare(old, next);
    fs.writeFileSync(file, shorter);
    expect(await recover(file)).toBe('other');
    expect(fs.readFileSync(file)).toEqual(shorter);
    // An edit of the same length outside the bytes the write changed is kept too.
    const renamed = Buffer.from(old.toString().replace('Seeded 10', 'Edited 10'));
    const second = prepare(old, next);
    fs.writeFileSync(second.file, renamed);
    await recover(second.file);
    expect(fs.readFileSync(second.file)).toEqual(renamed);

    const again = prepare(old, next);
    fs.truncateSync(undoPath(again.file), 30);
    fs.writeFileSync(again.file, old);
    expect(await recover(again.file)).toBe('none');
    expect(fs.readFileSync(again.file)).toEqual(old);
    expect(fs.existsSync(undoPath(again.file))).toBe(false);
  });
});

describe('an undo record that cannot be used', () => {
  it('Should refuse to open the file, naming the record and why, and leave the file as it is', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, petsFile(3));
    fs.mkdirSync(undoPath(file));
    const error = await openJsonFileStorage({ file }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as Error).message).toContain(`the undo record ${undoPath(file)} of its last write cannot be used`);
    expect(fs.readFileSync(file)).toEqual(petsFile(3));
  });
});

describe('creates on a large data file', () => {
  it('Should write new animals in place, keep one whole document, and leave no record after closing', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, petsFile(5_000));
    let storage = await openJsonFileStorage({ file });
    // The first write replaces the file whole; the next ones write in place, on the same inode.
    await storage.create({ name: 'First', categoryId: 1, status: 'available' });
    const inode = fs.statSync(file).ino;
    const created = await Promise.all(
      Array.from({ length: 30 }, (_, index) => storage.create({ name: `New ${index}`, categoryId: 2, status: 'pending' })),
    );
    expect(fs.statSync(file).ino).toBe(inode);
    expect(fs.existsSync(undoPath(file))).toBe(true);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(data.pets).toHaveLength(5_031);
    expect(data.pets.slice(-30)).toEqual(created);
    expect(data.nextId).toBe(5_032);
    await storage.close();
    expect(fs.existsSync(undoPath(file))).toBe(false);

    storage = await openJsonFileStorage({ file });
    expect((await storage.create({ name: 'After', categoryId: 1, status: 'sold' })).id).toBe(5_032);
    await storage.close();
  });

  it('Should keep Idempotency-Keys written in place beside their animals, across a restart', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, petsFile(5_000));
    const key = (name: string) => ({
      scope: 'a1b2c3',
      key: name,
      fingerprint: 'digest',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    let storage = await openJsonFileStorage({ file });
    await storage.create({ name: 'First', categoryId: 1, status: 'available' });
    const inode = fs.statSync(file).ino;
    const keyed = [];
    for (let index = 0; index < 5; index++)
      keyed.push(await storage.createIdempotent({ name: `Keyed ${index}`, categoryId: 2, status: 'sold' }, key(`order-${index}`)));
    expect(fs.statSync(file).ino).toBe(inode);
    await storage.close();

    storage = await openJsonFileStorage({ file });
    const again = await storage.createIdempotent({ name: 'Keyed 3', categoryId: 2, status: 'sold' }, key('order-3'));
    expect(again.replayed).toBe(true);
    expect(again.pet).toEqual(keyed[3]!.pet);
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(data.idempotencyKeys.map(({ key: name, petId }: { key: string; petId: number }) => [name, petId])).toEqual(
      keyed.map(({ pet }, index) => [`order-${index}`, pet.id]),
    );
    await storage.close();
  });
});

describe('a write in place the disk refuses half way', () => {
  it('Should answer storage_unavailable, put the file back as it was, and work again once the disk does', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    fs.writeFileSync(file, petsFile(5_000));
    // A full disk: writes past the file's end fail; bytes it holds can still be written over.
    let full = false;
    let refused = 0;
    const failing: FileSystem = {
      ...nodeFileSystem,
      open: (async (...args: Parameters<FileSystem['open']>) => {
        const handle = await nodeFileSystem.open(...args);
        if (String(args[0]).endsWith('.undo')) return handle;
        const writev = handle.writev.bind(handle);
        handle.writev = (async (buffers: NodeJS.ArrayBufferView[], position?: number) => {
          const length = buffers.reduce((total, buffer) => total + buffer.byteLength, 0);
          if (full && typeof position === 'number' && position + length > (await handle.stat()).size) {
            refused++;
            throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
          }
          return writev(buffers, position);
        }) as typeof handle.writev;
        return handle;
      }) as FileSystem['open'],
    };
    const storage = await openJsonFileStorageOn(file, failing);
    await storage.create({ name: 'Whole', categoryId: 1, status: 'available' });
    await storage.create({ name: 'In place', categoryId: 1, status: 'available' });
    const before = fs.readFileSync(file);

    full = true;
    const error = await storage.create({ name: 'Refused', categoryId: 2, status: 'sold' }).catch((thrown: unknown) => thrown);
    expect((error as { code?: string }).code).toBe('storage_unavailable');
    expect(String((error as Error).cause)).toContain('ENOSPC');
    expect(refused).toBe(1);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(await storage.list({ limit: 100, after: 4_990 })).not.toContainEqual(expect.objectContaining({ name: 'Refused' }));

    full = false;
    const next = await storage.create({ name: 'Room again', categoryId: 2, status: 'sold' });
    await storage.close();
    const data = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(data.pets.map(({ name }: Pet) => name).slice(-3)).toEqual(['Whole', 'In place', 'Room again']);
    expect(data.pets.at(-1)).toEqual(next);
  });
});
