import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileLockedError } from '../../../storage/jsonFile/DataFileError.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';

describe('JSON-file storage opening its file', () => {
  it('Should create a missing file and its missing folders, as an empty data file', async () => {
    const file = path.join(tempFolder(), 'deep', 'er', 'animals.json');
    const storage = await openJsonFileStorage({ file });
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ format: 2, nextId: 1, pets: [], idempotencyKeys: [] });
    expect((await storage.create({ name: 'First', categoryId: 1, status: 'available' })).id).toBe(1);
    await storage.close();
  });

  it('Should remove temp files a crashed writer left, and nothing else', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    const stale = ['animals.json.4242.0a1b2c3d4e5f.tmp', 'animals.json.1.ff.tmp'];
    const others = ['animals.json.bak', 'other.json.4242.0a1b2c3d4e5f.tmp', 'animals.json.tmp', 'notes.txt'];
    for (const name of [...stale, ...others]) fs.writeFileSync(path.join(folder, name), '{"half": ');
    const storage = await openJsonFileStorage({ file });
    expect(fs.readdirSync(folder).sort()).toEqual(['animals.json', ...others].sort());
    await storage.close();
  });

  it('Should refuse a second open of the same file, naming the file and the owner', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const owner = await openJsonFileStorage({ file });
    const error = await openJsonFileStorage({ file }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DataFileLockedError);
    expect((error as DataFileLockedError).message).toContain(file);
    expect((error as DataFileLockedError).message).toContain(`process ${process.pid}`);
    expect((error as DataFileLockedError).owner?.pid).toBe(process.pid);
    await owner.close();
    // Closed, the file is free at once.
    const next = await openJsonFileStorage({ file });
    await next.close();
  });

  it('Should see the same file behind another name as taken (a symlink to its folder)', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'real', 'animals.json');
    const owner = await openJsonFileStorage({ file });
    fs.symlinkSync(path.join(folder, 'real'), path.join(folder, 'alias'));
    await expect(openJsonFileStorage({ file: path.join(folder, 'alias', 'animals.json') })).rejects.toThrow(DataFileLockedError);
    await owner.close();
  });

  it('Should let different files be open at once', async () => {
    const folder = tempFolder();
    const one = await openJsonFileStorage({ file: path.join(folder, 'one.json') });
    const two = await openJsonFileStorage({ file: path.join(folder, 'two.json') });
    await Promise.all([one.close(), two.close()]);
  });

  it('Should accept a relative path and report it absolute', async () => {
    const folder = tempFolder();
    const relative = path.relative(process.cwd(), path.join(folder, 'animals.json'));
    const storage = await openJsonFileStorage({ file: relative });
    expect(storage.file).toBe(path.join(folder, 'animals.json'));
    await storage.close();
  });

  it('Should keep a symlinked data file a symlink, writing through to the file it points at', async () => {
    const folder = tempFolder();
    const target = path.join(folder, 'card', 'animals.json');
    fs.mkdirSync(path.dirname(target));
    fs.writeFileSync(target, '{"format":1,"nextId":1,"pets":[]}');
    const link = path.join(folder, 'animals.json');
    fs.symlinkSync(target, link);
    const storage = await openJsonFileStorage({ file: link });
    await storage.create({ name: 'Through', categoryId: 1, status: 'sold' });
    await storage.close();
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(JSON.parse(fs.readFileSync(target, 'utf8')).pets).toHaveLength(1);
  });

  it('Should keep the permissions of the data file it replaces', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, '{"format":1,"nextId":1,"pets":[]}');
    fs.chmodSync(file, 0o600);
    const storage = await openJsonFileStorage({ file });
    await storage.create({ name: 'Private', categoryId: 1, status: 'sold' });
    await storage.close();
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });
});
