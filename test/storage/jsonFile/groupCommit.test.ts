import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewPet } from '../../../core/schemas/NewPet.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { createControlledFileSystem, gate, until } from './controlledFileSystem.js';
import { readDataFile } from './readDataFile.js';

const pet = (name: string): NewPet => ({ name, categoryId: 1, status: 'available' });

/** Opens a storage over a controlled file system; `control.writes` counts from after the open. */
const openControlled = async () => {
  const folder = tempFolder();
  const file = path.join(folder, 'animals.json');
  const { fs: controlled, control } = createControlledFileSystem(folder);
  const storage = await openJsonFileStorageOn({ file }, controlled);
  const writesAtOpen = control.writes;
  const plan = (write: number, what: Parameters<typeof control.plans.set>[1]) => control.plans.set(writesAtOpen + write, what);
  const writesSinceOpen = () => control.writes - writesAtOpen;
  // What a server opening the file (after a crash, too) would serve: the document and its journal.
  const onDisk = () => readDataFile(file) as { nextId: number; pets: { id: number; name: string }[] };
  return { storage, file, plan, writesSinceOpen, onDisk };
};

describe('JSON-file storage group commit', () => {
  it('Should make concurrent creates share writes', async () => {
    const { storage, writesSinceOpen, onDisk } = await openControlled();
    const created = await Promise.all(Array.from({ length: 50 }, (_, offset) => storage.create(pet(`Pet ${offset}`))));
    expect(created.map((animal) => animal.id)).toEqual(Array.from({ length: 50 }, (_, offset) => offset + 1));
    expect(writesSinceOpen()).toBeGreaterThanOrEqual(1);
    expect(writesSinceOpen()).toBeLessThan(50);
    expect(onDisk().pets).toHaveLength(50);
    await storage.close();
  });

  it('Should gather the creates that arrive during a write into the next write', async () => {
    const { storage, plan, writesSinceOpen } = await openControlled();
    const first = gate();
    plan(1, { hold: first.closed });
    const leading = storage.create(pet('Leading'));
    await until(() => writesSinceOpen() === 1, 'the first write started');
    const followers = Array.from({ length: 20 }, (_, offset) => storage.create(pet(`Follower ${offset}`)));
    first.open();
    await Promise.all([leading, ...followers]);
    expect(writesSinceOpen()).toBe(2);
    await storage.close();
  });

  it('Should not show an animal before its write is durable', async () => {
    const { storage, plan, writesSinceOpen } = await openControlled();
    const held = gate();
    plan(1, { hold: held.closed });
    const creating = storage.create(pet('Waiting'));
    await until(() => writesSinceOpen() === 1, 'the write started');
    expect(await storage.get(1)).toBeUndefined();
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([]);
    held.open();
    expect(await creating).toMatchObject({ id: 1, name: 'Waiting' });
    expect(await storage.get(1)).toMatchObject({ id: 1, name: 'Waiting' });
    await storage.close();
  });

  it('Should reject exactly the creates of a failed write with storage_unavailable, show none of them, and recover', async () => {
    const { storage, file, plan, writesSinceOpen, onDisk } = await openControlled();
    const first = gate();
    const second = gate();
    plan(1, { hold: first.closed });
    plan(2, { hold: second.closed, failOpen: true });

    const acknowledged = storage.create(pet('Acknowledged'));
    await until(() => writesSinceOpen() === 1, 'the first write started');
    const doomed = [storage.create(pet('Doomed 1')), storage.create(pet('Doomed 2'))];
    const doomedResults = Promise.allSettled(doomed);
    first.open();
    expect(await acknowledged).toMatchObject({ id: 1, name: 'Acknowledged' });

    await until(() => writesSinceOpen() === 2, 'the second write started');
    // While their write is in flight, the doomed animals are not visible.
    expect((await storage.list({ after: 0, limit: 10 })).map((animal) => animal.name)).toEqual(['Acknowledged']);
    second.open();
    for (const result of await doomedResults) {
      expect(result.status).toBe('rejected');
      expect((result as PromiseRejectedResult).reason).toMatchObject({ code: 'storage_unavailable', status: 503 });
    }
    expect((await storage.list({ after: 0, limit: 10 })).map((animal) => animal.name)).toEqual(['Acknowledged']);
    expect(await storage.get(2)).toBeUndefined();
    expect(await storage.get(3)).toBeUndefined();
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Acknowledged']);

    // The disk works again: creates work again, and no acknowledged id is given twice.
    const later = await storage.create(pet('Later'));
    expect(later.id).toBeGreaterThan(1);
    expect(onDisk().pets.map((animal) => [animal.id, animal.name])).toEqual([
      [1, 'Acknowledged'],
      [later.id, 'Later'],
    ]);
    await storage.close();

    const reopened = await openJsonFileStorage({ file });
    expect((await reopened.list({ after: 0, limit: 10 })).map((animal) => animal.name)).toEqual(['Acknowledged', 'Later']);
    expect((await reopened.create(pet('After restart'))).id).toBe(later.id + 1);
    await reopened.close();
  });

  it('Should never reuse the ids of a write that may have reached the disk, and write the next whole without it', async () => {
    const { storage, file, plan, onDisk } = await openControlled();
    const kept = await storage.create(pet('Kept'));
    plan(2, { failFolderSync: true });
    await expect(storage.create(pet('In doubt'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([kept]);
    // Its line landed in the journal and could not be cut back: readers never see it, the journal may hold it.
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept', 'In doubt']);
    // Its id (2) might survive a crash at that moment, so it is skipped for good; the next
    // write is the whole file, from what was acknowledged, which empties the journal.
    const next = await storage.create(pet('Next'));
    expect(next.id).toBe(3);
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept', 'Next']);
    expect(fs.readFileSync(`${file}.journal`, 'utf8')).toBe('');
    await storage.close();
  });

  it('Should write the file whole without the animals of a failed write when it stops', async () => {
    const { storage, file, plan, onDisk } = await openControlled();
    const kept = await storage.create(pet('Kept'));
    plan(2, { failFolderSync: true });
    await expect(storage.create(pet('In doubt'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    // Readers never see it, but the journal still holds it, until a write succeeds.
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([kept]);
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept', 'In doubt']);
    await storage.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8'))).toEqual({ format: 2, nextId: 3, pets: [kept], idempotencyKeys: [] });
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
  });

  it('Should keep neither the animal nor its Idempotency-Key of a failed write, so a retry with the key creates it', async () => {
    const { storage, plan, onDisk } = await openControlled();
    const key = { scope: 'a1b2c3d4e5f6', key: 'retry-me', fingerprint: 'f', createdAt: 1_700_000_000_000, expiresAt: 1_700_086_400_000 };
    plan(1, { failOpen: true });
    await expect(storage.createIdempotent(pet('Doomed'), key)).rejects.toMatchObject({ code: 'storage_unavailable' });
    const retried = await storage.createIdempotent(pet('Doomed'), key);
    expect(retried).toMatchObject({ pet: { id: 1, name: 'Doomed' }, replayed: false });
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Doomed']);
    expect(await storage.createIdempotent(pet('Doomed'), key)).toMatchObject({ pet: { id: 1 }, replayed: true });
    await storage.close();
  });

  it('Should reject every create while the disk keeps failing, and close cleanly', async () => {
    const { storage, plan, onDisk } = await openControlled();
    for (let write = 1; write <= 5; write++) plan(write, { failOpen: true });
    const results = await Promise.allSettled([1, 2, 3].map((n) => storage.create(pet(`Pet ${n}`))));
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
    await expect(storage.create(pet('Again'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    await storage.close();
    expect(onDisk()).toEqual({ format: 2, nextId: 1, pets: [], idempotencyKeys: [] });
  });

  it('Should cut back a journal line that cannot be made durable, and leave no file behind', async () => {
    const { storage, file, plan, onDisk } = await openControlled();
    plan(1, { failFileSync: true });
    await expect(storage.create(pet('Not durable'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(onDisk().pets).toEqual([]);
    await storage.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(['animals.json']);
  });

  it('Should leave no temp file behind when a whole write cannot be made durable', async () => {
    const { storage, file, plan, onDisk } = await openControlled();
    await storage.create(pet('Kept'));
    plan(2, { failFolderSync: true }); // the journal may hold this one: the next write is whole
    await expect(storage.create(pet('In doubt'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    plan(3, { failFileSync: true });
    await expect(storage.create(pet('Not durable'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(['animals.json', 'animals.json.journal']);
    expect((await storage.create(pet('Later'))).id).toBe(3); // id 3 never reached the disk
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept', 'Later']);
    await storage.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(['animals.json']);
  });

  it('Should store a batch of more creates than a call takes arguments', async () => {
    // 200,000 in one turn make one batch: an import script's Promise.all, or a flood behind a slow disk.
    const file = path.join(tempFolder(), 'animals.json');
    const reports: Array<{ size: number }> = [];
    const storage = await openJsonFileStorage({ file, onCommit: (report) => reports.push(report) });
    const count = 200_000;
    const created = await Promise.all(Array.from({ length: count }, (_, at) => storage.create(pet(`Pet ${at}`))));
    expect(Math.max(...reports.map((report) => report.size))).toBeGreaterThan(150_000);
    expect(created.at(-1)).toEqual({ id: count, name: `Pet ${count - 1}`, categoryId: 1, status: 'available' });
    await storage.close();
    expect(readDataFile(file)).toMatchObject({ nextId: count + 1, pets: { length: count } });
  }, 30_000);
});

describe('JSON-file storage commit reports', () => {
  it('Should tell an observer of each durable write: its size, its time, and whether it held', async () => {
    const reports: Array<{ size: number; seconds: number; ok: boolean }> = [];
    const folder = tempFolder();
    const { fs: controlled, control } = createControlledFileSystem(folder);
    const storage = await openJsonFileStorageOn(
      { file: path.join(folder, 'animals.json'), onCommit: (report) => reports.push(report) },
      controlled,
    );
    await Promise.all(Array.from({ length: 5 }, (_, offset) => storage.create(pet(`Pet ${offset}`))));
    control.plans.set(control.writes + 1, { failOpen: true });
    await expect(storage.create(pet('Doomed'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(reports.reduce((total, report) => total + (report.ok ? report.size : 0), 0)).toBe(5);
    expect(reports.at(-1)).toMatchObject({ size: 1, ok: false });
    for (const report of reports) expect(report.seconds).toBeGreaterThanOrEqual(0);
    await storage.close();
  });
});
