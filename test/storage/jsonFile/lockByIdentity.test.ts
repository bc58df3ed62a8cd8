import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileLockedError } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { until } from './controlledFileSystem.js';

const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

/** Opens `file` expecting a refusal; resolves with the DataFileLockedError. */
const refused = async (file: string) => {
  const error = await openJsonFileStorage({ file }).then(
    (storage) => storage.close().then(() => expect.unreachable(`${file} opened while another storage owns it`)),
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(DataFileLockedError);
  return error as DataFileLockedError;
};

describe('JSON-file storage: one owner per file, whatever name reaches it', () => {
  it('Should refuse the same file through a hard link, naming the link and the owner', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    const owner = await openJsonFileStorage({ file });
    await owner.create(pet('Before the link'));
    const link = path.join(folder, 'same-animals.json');
    fs.linkSync(file, link);
    const error = await refused(link);
    expect(error.message).toContain(link);
    expect(error.owner?.pid).toBe(process.pid);
    expect(error.message).toContain(`process ${process.pid}`);
    await owner.close();
  });

  it('Should keep the file locked across its writes, each whole one putting a new file in its place', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    // No minimum: the journal soon outgrows this small file, and a whole write follows.
    const owner = await openJsonFileStorage({ file, journalMinBytes: 0 });
    let created = 0;
    for (let round = 0; round < 3; round++) {
      const before = fs.statSync(file).ino;
      for (let tries = 0; tries < 20 && fs.statSync(file).ino === before; tries++) {
        await owner.create(pet(`Pet ${++created}`));
        await refused(file);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(fs.statSync(file).ino).not.toBe(before);
      await refused(file);
    }
    await owner.close();
    const next = await openJsonFileStorage({ file });
    expect(await next.list({ after: 0, limit: 100 })).toHaveLength(created);
    await next.close();
  });

  it('Should keep refusing a hard link made before the start, after writes replaced the file', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    fs.writeFileSync(file, '{"format":2,"nextId":1,"pets":[],"idempotencyKeys":[]}');
    const link = path.join(folder, 'old-name.json');
    fs.linkSync(file, link);
    const owner = await openJsonFileStorage({ file, journalMinBytes: 0 });
    await owner.create(pet('After the start'));
    await until(() => fs.statSync(file).ino !== fs.statSync(link).ino, 'a whole write replaced the file');
    await refused(link);
    await owner.close();
  });

  it('Should free the file on close, for an open by any of its names', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    const owner = await openJsonFileStorage({ file });
    await owner.create(pet('Kept'));
    await owner.close();
    const link = path.join(folder, 'link.json');
    fs.linkSync(file, link);
    const next = await openJsonFileStorage({ file: link });
    expect(await next.get(1)).toMatchObject({ name: 'Kept' });
    await next.close();
  });
});
