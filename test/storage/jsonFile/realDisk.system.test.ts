import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { setReadOnly, smallDisk } from './mount.js';
import { untilHealth } from './untilHealth.js';

const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

/** Appends zeros to a file until the disk is full. */
const fillDisk = (file: string) => {
  const block = Buffer.alloc(4096);
  const fd = fs.openSync(file, 'a');
  try {
    for (;;) fs.writeSync(fd, block);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error;
  } finally {
    fs.closeSync(fd);
  }
};

/**
 * Fills the disk, and again once the file a write replaced is gone: a write answers before
 * it closes the replaced file, whose blocks are freed only then.
 */
const fillDiskForGood = async (file: string) => {
  fillDisk(file);
  await new Promise((resolve) => setTimeout(resolve, 200));
  fillDisk(file);
};

describe('JSON-file storage on a real disk that fails', () => {
  it('Should say the disk is full (ENOSPC), be unhealthy until there is room again, then healthy with no create in between', async () => {
    const disk = tempFolder();
    await smallDisk(disk, 512);
    const file = path.join(disk, 'animals.json');
    const storage = await openJsonFileStorage({ file });
    const kept = await storage.create(pet('Kept'));
    const filler = path.join(disk, 'filler');
    await fillDiskForGood(filler);

    // A journal line may still fit in the block its last line began: those creates are on disk, acknowledged.
    const acknowledged = [kept];
    let error: Error | undefined;
    for (let tries = 0; tries < 100 && error === undefined; tries++) {
      await storage.create(pet('No room')).then(
        (created) => acknowledged.push(created),
        (thrown: Error) => (error = thrown),
      );
    }
    expect(error).toMatchObject({ code: 'storage_unavailable', status: 503 });
    const reason = `The data file ${file} cannot be written: no space left on device (ENOSPC)`;
    expect(error?.cause).toMatchObject({ code: 'ENOSPC', message: reason });
    expect(await storage.checkHealth!()).toEqual({ ok: false, reason });
    // After that second, a probe of the disk finds it still full.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect(await storage.checkHealth!()).toEqual({ ok: false, reason });
    expect(await storage.list({ after: 0, limit: 200 })).toEqual(acknowledged);

    fs.rmSync(filler);
    await untilHealth(storage, (health) => health.ok);
    expect((await storage.create(pet('Room again'))).id).toBe(acknowledged.length + 1);
    await storage.close();
    // Every acknowledged animal is in the file, and nothing of the refused create.
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets).toHaveLength(acknowledged.length + 1);
  });

  it('Should report room running out before a create meets it', async () => {
    const disk = tempFolder();
    await smallDisk(disk, 1024);
    const file = path.join(disk, 'animals.json');
    const storage = await openJsonFileStorage({ file });
    await Promise.all(Array.from({ length: 2000 }, (_, offset) => storage.create(pet(`Animal ${offset}`))));
    expect(fs.statSync(file).size + fs.statSync(`${file}.journal`).size).toBeGreaterThan(100_000);
    // Leave less room than the file and its journal take: writing them whole would not fit beside them.
    const filler = path.join(disk, 'filler');
    await fillDiskForGood(filler);
    fs.truncateSync(filler, fs.statSync(filler).size - 64 * 1024);
    const health = await untilHealth(storage, (answer) => !answer.ok);
    expect(health).toMatchObject({
      reason: expect.stringMatching(/cannot be written: no space left on device: .* free, a write needs .* \(ENOSPC\)$/),
    });
    await storage.close();
  });

  it('Should refuse to start on a read-only disk, saying so (EROFS), and leave the file as it is', async () => {
    const disk = tempFolder();
    await smallDisk(disk, 512);
    const file = path.join(disk, 'animals.json');
    const content = '{"format":2,"nextId":2,"pets":[{"id":1,"name":"Kept","categoryId":1,"status":"sold"}],"idempotencyKeys":[]}';
    fs.writeFileSync(file, content);
    // (A disk cannot be made read-only under a running server here: its open data file keeps the remount busy.)
    await setReadOnly(disk, true);
    await expect(openJsonFileStorage({ file })).rejects.toThrow(
      `The data file ${file} cannot be read and written by this process: read-only file system (EROFS).`,
    );
    expect(fs.readFileSync(file, 'utf8')).toBe(content);
  });
});
