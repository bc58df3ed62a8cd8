/** @module A JSON-file kiosk's creates through the file's rooms: ids from leased blocks, failed writes, keys beside the sync part. */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { IdempotencyKey } from '../../../core/PetStorage.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { createControlledFileSystem } from './controlledFileSystem.js';

const HUB = 'http://hub.test/v1';
const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const key = (name: string, createdAt = Date.now()): IdempotencyKey => ({
  scope: 'a1b2c3',
  key: name,
  fingerprint: 'payload',
  createdAt,
  expiresAt: createdAt + 86_400_000,
});

describe('JSON-file kiosk: creates', () => {
  it('Should give an id again after a write that never reached the disk, and never after one that may have', async () => {
    const file = tempDataFile();
    const { fs: controlled, control } = createControlledFileSystem(path.dirname(file));
    const kiosk = await openJsonFileStorageOn({ file }, controlled);
    await kiosk.sync.join(HUB);
    await kiosk.sync.addBlock({ first: 1001, last: 1010 });

    control.plans.set(control.writes + 1, { failOpen: true });
    await expect(kiosk.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect((await kiosk.create(rex)).id).toBe(1001);

    // The new file may be in place: its id stays given, as a plain create's would.
    control.plans.set(control.writes + 1, { failFolderSync: true });
    await expect(kiosk.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect((await kiosk.create(rex)).id).toBe(1003);
    expect((await kiosk.list({ after: 0, limit: 10 })).map(({ id }) => id)).toEqual([1001, 1003]);
    await kiosk.close();

    const reopened = await openJsonFileStorage({ file });
    expect((await reopened.list({ after: 0, limit: 10 })).map(({ id }) => id)).toEqual([1001, 1003]);
    expect((await reopened.sync.kiosk())?.nextId).toBe(1004);
    await reopened.close();
  });

  it('Should keep a keyed create’s key and the kiosk’s progress in the same write, replayed after a reopen', async () => {
    const file = tempDataFile();
    const kiosk = await openJsonFileStorage({ file });
    await kiosk.sync.join(HUB);
    await kiosk.sync.addBlock({ first: 2001, last: 2002 });
    const first = await kiosk.createIdempotent(rex, key('order-1'));
    expect(first).toMatchObject({ pet: { id: 2001 }, replayed: false });
    expect(await kiosk.createIdempotent(rex, key('order-1'))).toMatchObject({ pet: { id: 2001 }, replayed: true });
    await kiosk.close();

    const onDisk = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(onDisk.idempotencyKeys).toMatchObject([{ key: 'order-1', petId: 2001 }]);
    expect(onDisk.sync.kiosk).toMatchObject({ hub: HUB, nextId: 2002 });
    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.createIdempotent(rex, key('order-1'))).toMatchObject({ pet: { id: 2001 }, replayed: true });
    expect((await reopened.createIdempotent(rex, key('order-2'))).pet.id).toBe(2002);
    // Out of leased ids: refused, and nothing written.
    await expect(reopened.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await reopened.sync.waiting()).toBe(2);
    await reopened.close();
  });
});
