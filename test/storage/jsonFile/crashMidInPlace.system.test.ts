/** @module A crash in the middle of a write in place: the next start puts the file back as it was before that write. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { PetFileSerializer } from '../../../storage/jsonFile/PetFileSerializer.js';
import { undoPath } from '../../../storage/jsonFile/writeInPlace.js';
import { getJson, postPet, readDataFile, startServer, tempDataFile } from '../../support/serverProcess.js';

const PRELOAD = './test/storage/jsonFile/crashMidInPlacePreload.ts';
/** Enough animals that the file is past the size from which writes go in place. */
const SEEDED = 5_000;

describe('the real server killed with SIGKILL in the middle of a write in place', () => {
  it('Should start again on the file as it was before that write, one whole document with every acknowledged animal', async () => {
    const file = tempDataFile();
    const seed: Pet[] = Array.from({ length: SEEDED }, (_, offset) => ({
      id: offset + 1,
      name: `Seeded ${offset + 1}`,
      categoryId: 1,
      status: 'sold',
    }));
    fs.writeFileSync(
      file,
      Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: SEEDED + 1, pets: seed, idempotencyKeys: [] })),
    );
    const crashNow = `${file}.crash`;
    const first = await startServer(file, { preload: [PRELOAD], env: { ANIMAL_STORE_TEST_CRASH_MID_IN_PLACE: crashNow } });
    // The first write after a start replaces the file whole; the second is written in place.
    const acknowledged = [
      await postPet(first.url, { name: 'Whole', categoryId: 2 }),
      await postPet(first.url, { name: 'In place', categoryId: 2 }),
    ];
    expect(acknowledged.map(({ status }) => status)).toEqual([201, 201]);
    const before = fs.readFileSync(file);

    fs.writeFileSync(crashNow, '');
    await expect(postPet(first.url, { name: 'Torn', categoryId: 3 })).rejects.toThrow();
    expect((await first.exited).signal).toBe('SIGKILL');
    fs.rmSync(crashNow);
    // The crash left the file half written (its next id new, its animals old) and the record of the write beside it.
    expect(fs.readFileSync(file).equals(before)).toBe(false);
    expect(fs.existsSync(undoPath(file))).toBe(true);

    const second = await startServer(file);
    expect(fs.readFileSync(file).equals(before)).toBe(true);
    expect(fs.existsSync(undoPath(file))).toBe(false);
    const onDisk = readDataFile(file);
    expect(onDisk.pets).toHaveLength(SEEDED + 2);
    expect(onDisk.pets.slice(-2)).toEqual(acknowledged.map(({ body }) => body));
    const next = await postPet(second.url, { name: 'After', categoryId: 4 });
    expect(next.status).toBe(201);
    expect((await getJson(second.url, `/pets/${(next.body as Pet).id}`)).body).toEqual(next.body);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
    expect(readDataFile(file).pets).toHaveLength(SEEDED + 3);
  });
});
