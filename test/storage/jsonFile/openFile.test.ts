import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { DataFileError, DataFileLockedError } from '../../../storage/durableFile/index.js';
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

  it('Should refuse a data file that is a symlink to nothing, naming the link and its target, and create nothing', async () => {
    const folder = tempFolder();
    const target = path.join(folder, 'volume', 'animals.json');
    const link = path.join(folder, 'animals.json');
    fs.symlinkSync(target, link);
    const error = await openJsonFileStorage({ file: link }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DataFileError);
    expect((error as DataFileError).message).toContain(`${link} is a symbolic link to ${target}, which does not exist`);
    expect(fs.lstatSync(link).isSymbolicLink()).toBe(true);
    expect(fs.existsSync(path.join(folder, 'volume'))).toBe(false);
  });

  it('Should refuse a data file whose folder is a symlink to nothing, naming that link', async () => {
    const folder = tempFolder();
    const mountPoint = path.join(folder, 'mnt', 'animals');
    const link = path.join(folder, 'data');
    fs.symlinkSync(mountPoint, link);
    const file = path.join(link, 'animals.json');
    await expect(openJsonFileStorage({ file })).rejects.toThrow(
      `is reached through the symbolic link ${link} to ${mountPoint}, which does not exist`,
    );
    expect(fs.existsSync(mountPoint)).toBe(false);
  });

  /** Runs `task` with the umask set to `mask`, as a server started by a shell usually has (022). */
  const withUmask = async (mask: number, task: () => Promise<void>) => {
    const before = process.umask(mask);
    try {
      await task();
    } finally {
      process.umask(before);
    }
  };

  it('Should keep the permissions of the data file whatever the umask', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, '{"format":1,"nextId":1,"pets":[]}');
    fs.chmodSync(file, 0o664);
    await withUmask(0o022, async () => {
      const storage = await openJsonFileStorage({ file });
      await storage.create({ name: 'Shared', categoryId: 1, status: 'sold' });
      await storage.close();
    });
    expect(fs.statSync(file).mode & 0o7777).toBe(0o664);
  });

  it('Should keep the owner and group of the data file it replaces', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, '{"format":1,"nextId":1,"pets":[]}');
    fs.chownSync(file, 1234, 5678);
    const storage = await openJsonFileStorage({ file });
    await storage.create({ name: 'Owned', categoryId: 1, status: 'sold' });
    await storage.close();
    expect(fs.statSync(file)).toMatchObject({ uid: 1234, gid: 5678 });
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets).toHaveLength(1);
  });

  it('Should create a new data file readable by its owner only, whatever the umask', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    await withUmask(0o022, async () => {
      const storage = await openJsonFileStorage({ file });
      expect(fs.statSync(file).mode & 0o7777).toBe(0o600);
      await storage.create({ name: 'Private', categoryId: 1, status: 'sold' });
      await storage.close();
    });
    expect(fs.statSync(file).mode & 0o7777).toBe(0o600);
  });
});
