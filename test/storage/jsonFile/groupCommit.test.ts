import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { NewPet } from '../../../core/schemas/NewPet.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { createControlledFileSystem, gate, until } from './controlledFileSystem.js';

const pet = (name: string): NewPet => ({ name, categoryId: 1, status: 'available' });

/** Opens a storage over a controlled file system; `control.writes` counts from after the open. */
const openControlled = async () => {
  const folder = tempFolder();
  const file = path.join(folder, 'animals.json');
  const { fs: controlled, control } = createControlledFileSystem(folder);
  const storage = await openJsonFileStorageOn(file, controlled);
  const writesAtOpen = control.writes;
  const plan = (write: number, what: Parameters<typeof control.plans.set>[1]) => control.plans.set(writesAtOpen + write, what);
  const writesSinceOpen = () => control.writes - writesAtOpen;
  const onDisk = () => JSON.parse(fs.readFileSync(file, 'utf8')) as { nextId: number; pets: { id: number; name: string }[] };
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

  it('Should put the acknowledged content back, and never reuse the failed ids, when the folder fsync fails after the rename', async () => {
    const { storage, plan, onDisk } = await openControlled();
    const kept = await storage.create(pet('Kept'));
    plan(2, { failFolderSync: true });
    await expect(storage.create(pet('In doubt'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([kept]);
    // The in-doubt animal reached the file before the fsync failed; it is gone again.
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept']);
    // Its id (2) might have survived a crash at that moment, so it is skipped for good.
    const next = await storage.create(pet('Next'));
    expect(next.id).toBe(3);
    await storage.close();
  });

  it('Should put the file back on close when both a write and its repair failed after the rename', async () => {
    const { storage, plan, onDisk } = await openControlled();
    const kept = await storage.create(pet('Kept'));
    plan(2, { failFolderSync: true });
    plan(3, { failFileSync: true });
    await expect(storage.create(pet('In doubt'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    // Readers never see it, but the file still does, until a write succeeds.
    expect(await storage.list({ after: 0, limit: 10 })).toEqual([kept]);
    expect(onDisk().pets.map((animal) => animal.name)).toEqual(['Kept', 'In doubt']);
    await storage.close();
    expect(onDisk()).toEqual({ format: 2, nextId: 3, pets: [kept], idempotencyKeys: [] });
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

  it('Should leave no temp file behind when the temp file cannot be made durable', async () => {
    const { storage, file, plan, onDisk } = await openControlled();
    plan(1, { failFileSync: true });
    await expect(storage.create(pet('Not durable'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(onDisk().pets).toEqual([]);
    await storage.close();
    expect(fs.readdirSync(path.dirname(file))).toEqual(['animals.json']);
  });
});

describe('JSON-file storage commit reports', () => {
  it('Should tell an observer of each durable write: its size, its time, and whether it held', async () => {
    const reports: Array<{ size: number; seconds: number; ok: boolean }> = [];
    const folder = tempFolder();
    const { fs: controlled, control } = createControlledFileSystem(folder);
    const storage = await openJsonFileStorageOn(path.join(folder, 'animals.json'), controlled, (report) => reports.push(report));
    await Promise.all(Array.from({ length: 5 }, (_, offset) => storage.create(pet(`Pet ${offset}`))));
    control.plans.set(control.writes + 1, { failOpen: true });
    await expect(storage.create(pet('Doomed'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(reports.reduce((total, report) => total + (report.ok ? report.size : 0), 0)).toBe(5);
    expect(reports.at(-1)).toMatchObject({ size: 1, ok: false });
    for (const report of reports) expect(report.seconds).toBeGreaterThanOrEqual(0);
    await storage.close();
  });
});
