import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { StoredIdempotencyKey } from '../../../core/PetStorage.js';
import { KeySpillFile } from '../../../storage/jsonFile/KeySpillFile.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';

const MIB = 1024 * 1024;

/** `length` bytes, each its offset's low byte plus `seed`. */
const bytesOf = (length: number, seed: number) => Uint8Array.from({ length }, (_, at) => (at + seed) & 255);

/** The names in `file`'s folder. */
const folderOf = (file: string) => fs.readdirSync(path.dirname(file)).sort();

describe('KeySpillFile', () => {
  it('Should give back what was written, leave no file to see in the folder, and take back the room of what was released', () => {
    const file = tempDataFile();
    fs.writeFileSync(file, '{}');
    const spill = KeySpillFile.open(file)!;
    expect(folderOf(file)).toEqual([path.basename(file)]);

    const places = Array.from({ length: 12 }, (_, chunk) => spill.write(bytesOf(256 * 1024, chunk))!);
    expect(spill.size).toBe(3 * MIB);
    expect(new Uint8Array(spill.read(places[5]! + 10, 4))).toEqual(bytesOf(256 * 1024, 5).subarray(10, 14));

    // Half the chunks left the queue's front: their 1.5 MiB is copied away from, not kept.
    spill.releaseBefore(places[6]!);
    expect(spill.size).toBe(1.5 * MIB);
    for (let chunk = 6; chunk < 12; chunk++)
      expect(Buffer.from(spill.read(places[chunk]!, 256 * 1024)).equals(bytesOf(256 * 1024, chunk))).toBe(true);
    expect(() => spill.read(places[5]!, 4)).toThrow();
    // Places go on from where they were.
    const next = spill.write(bytesOf(100, 99))!;
    expect(next).toBe(3 * MIB);
    expect(new Uint8Array(spill.read(next, 100))).toEqual(bytesOf(100, 99));
    expect(folderOf(file)).toEqual([path.basename(file)]);

    spill.close();
    expect(() => spill.read(next, 100)).toThrow(expect.objectContaining({ code: 'storage_unavailable' }));
    expect(folderOf(file)).toEqual([path.basename(file)]);
  });
});

/**
 * The files this process holds open beside `file` under a temp file's name, but the data
 * file itself (made under a temp name, then linked into place, so its first descriptor
 * still shows that name).
 */
const spillsBeside = (file: string) => {
  const dataFile = fs.existsSync(file) ? fs.statSync(file).ino : -1;
  return fs.readdirSync('/proc/self/fd').flatMap((fd) => {
    try {
      const target = fs.readlinkSync(`/proc/self/fd/${fd}`);
      const isSpill = target.startsWith(`${file}.`) && target.includes('.tmp') && fs.statSync(`/proc/self/fd/${fd}`).ino !== dataFile;
      return isSpill ? [target] : [];
    } catch {
      return [];
    }
  });
};

describe('A JSON data file spilling its keys', () => {
  it('Should hold its spill open while it runs, and nothing once closed or after a start that fails', async () => {
    const file = tempDataFile();
    const storage = await openJsonFileStorage({ file });
    expect(spillsBeside(file)).toEqual([expect.stringMatching(/\.tmp \(deleted\)$/)]);
    await storage.close();
    expect(spillsBeside(file)).toEqual([]);

    const damaged = tempDataFile();
    fs.writeFileSync(damaged, 'not JSON');
    await expect(openJsonFileStorage({ file: damaged })).rejects.toThrow(/cannot be used/);
    expect(spillsBeside(damaged)).toEqual([]);
  });

  it("Should answer a retry of any key with its first animal after the keys' chunks went out of memory, before and after a restart", async () => {
    const file = tempDataFile();
    let storage = await openJsonFileStorage({ file });
    const scope = 'a'.repeat(64);
    const start = Date.now();
    const keyOf = (at: number): StoredIdempotencyKey => ({
      scope,
      key: randomUUID(),
      fingerprint: Buffer.from(Uint32Array.of(at, 7).buffer).toString('base64url'),
      petId: 0,
      createdAt: start,
      expiresAt: start + 86_400_000,
    });
    // Four chunks of 4,096 keys: the first two leave memory.
    const keys = Array.from({ length: 4 * 4096 + 10 }, (_, at) => keyOf(at));
    const created: number[] = [];
    for (let at = 0; at < keys.length; at += 500) {
      const batch = keys.slice(at, at + 500);
      const results = await Promise.all(
        batch.map((key, offset) => storage.createIdempotent({ name: `Pet ${at + offset}`, categoryId: 1, status: 'available' }, key)),
      );
      created.push(...results.map((result) => result.pet.id));
    }
    const retryAll = async (replayed: boolean) => {
      for (const at of [0, 1, 4095, 4096, 8191, 8192, 12_000, keys.length - 1]) {
        const result = await storage.createIdempotent({ name: `Pet ${at}`, categoryId: 1, status: 'available' }, keys[at]!);
        expect(result).toMatchObject({
          replayed,
          pet: { id: created[at], name: `Pet ${at}` },
          stored: { key: keys[at]!.key, fingerprint: keys[at]!.fingerprint },
        });
      }
    };
    await retryAll(true);
    // No file of its own shows beside the data file (its journal may).
    expect(folderOf(file).filter((name) => !name.endsWith('.journal'))).toEqual([path.basename(file)]);
    await storage.close();
    expect(folderOf(file)).toEqual([path.basename(file)]);

    storage = await openJsonFileStorage({ file });
    await retryAll(true);
    expect((await storage.list({ after: 0, limit: 1_000_000 })).length).toBe(keys.length);
    await storage.close();
  });
});
