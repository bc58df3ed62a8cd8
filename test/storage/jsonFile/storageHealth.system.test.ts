import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { createControlledFileSystem } from './controlledFileSystem.js';
import { untilHealth } from './untilHealth.js';

const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

const openControlled = async () => {
  const folder = tempFolder();
  const file = path.join(folder, 'animals.json');
  const { fs, control } = createControlledFileSystem(folder);
  const storage = await openJsonFileStorageOn({ file }, fs);
  /** Makes the nth durable write (or health probe) from now meet `plan`. */
  const plan = (nth: number, what: Parameters<typeof control.plans.set>[1]) => control.plans.set(control.writes + nth, what);
  return { file, storage, plan };
};

describe('JSON-file storage on a failing disk', () => {
  it("Should give a failed create's cause the system error code and one line naming the file, the same each time", async () => {
    const { file, storage, plan } = await openControlled();
    plan(1, { failOpen: true });
    plan(2, { failOpen: true });
    const causes: Error[] = [];
    for (const name of ['One', 'Two']) {
      const error = await storage.create(pet(name)).catch((thrown: unknown) => thrown);
      expect(error).toMatchObject({ code: 'storage_unavailable', status: 503 });
      causes.push((error as Error).cause as Error);
    }
    for (const cause of causes) {
      expect(cause).toMatchObject({ code: 'ENOSPC', message: `The data file ${file} cannot be written: no space left on device (ENOSPC)` });
    }
    await storage.close();
  });

  it('Should name an fsync failure as an I/O error (EIO)', async () => {
    const { file, storage, plan } = await openControlled();
    plan(1, { failFileSync: true });
    const error = (await storage.create(pet('Lost')).catch((thrown: unknown) => thrown)) as Error;
    expect(error.cause).toMatchObject({ code: 'EIO', message: `The data file ${file} cannot be written: i/o error (EIO)` });
    await storage.close();
  });

  it('Should be unhealthy while writes fail, saying why, and healthy again once the disk works, with no create in between', async () => {
    const { file, storage, plan } = await openControlled();
    expect(await storage.checkHealth!()).toEqual({ ok: true });
    plan(1, { failOpen: true }); // the create
    plan(2, { failOpen: true }); // the first health probe after it
    await expect(storage.create(pet('Refused'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    const reason = `The data file ${file} cannot be written: no space left on device (ENOSPC)`;
    expect(await storage.checkHealth!()).toEqual({ ok: false, reason });
    // The probe that follows meets the disk still failing; the one after, a disk that works.
    await untilHealth(storage, (health) => health.ok);
    expect((await storage.create(pet('Accepted'))).id).toBe(1);
    await storage.close();
  });
});
