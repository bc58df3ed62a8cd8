import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { createPetService } from '../../../core/createPetService.js';
import type { PetStorage } from '../../../core/PetStorage.js';
import type { Pet } from '../../../core/schemas/Pet.js';
import { DataFileError, DataFileLockedError, DurableTextFile } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { createControlledFileSystem, gate, until } from './controlledFileSystem.js';
import { readDataFile } from './readDataFile.js';

const KEY = 'test-key-number-1';
const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });
const animal = (id: number, name: string): Pet => ({ id, name, categoryId: 2, status: 'sold' });
const fileText = (nextId: number, pets: Pet[]) => `${JSON.stringify({ format: 2, nextId, pets, idempotencyKeys: [] }, null, 2)}\n`;
/** The document and its journal: what the server serves after a restart. */
const onDisk = (file: string) => readDataFile(file) as { nextId: number; pets: Pet[] };

/** Saves the file the way many editors do: a new file beside it, renamed over it. */
const saveByRename = (file: string, text: string) => {
  const temp = `${file}.swp`;
  fs.writeFileSync(temp, text);
  fs.renameSync(temp, file);
};

/** Resolves once the storage lists exactly these names (the edit reached the readers). */
const untilListed = async (storage: PetStorage, names: string[]) => {
  let listed: string[] = [];
  for (let attempt = 0; attempt < 500; attempt++) {
    listed = (await storage.list({ after: 0, limit: 100 })).map((listedPet) => listedPet.name);
    if (JSON.stringify(listed) === JSON.stringify(names)) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(listed).toEqual(names);
};

const openFresh = async () => {
  const file = path.join(tempFolder(), 'animals.json');
  const storage = await openJsonFileStorage({ file });
  return { file, storage };
};

describe('JSON-file storage and a file edited by hand while it runs', () => {
  it('Should keep an edit saved in place, give the next create an id after it, and never give an id twice', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    fs.writeFileSync(file, fileText(3, [first, animal(2, 'Added by hand')]));
    const next = await storage.create(pet('Next'));
    expect(next.id).toBe(3);
    expect(onDisk(file).pets).toEqual([first, animal(2, 'Added by hand'), next]);
    expect(await storage.get(2)).toEqual(animal(2, 'Added by hand'));
    await storage.close();
  });

  it('Should show a valid edit to readers soon after it is saved, without waiting for a create, the creates in the journal on top', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    // The document does not hold First yet (its journal does): the edit keeps it.
    fs.writeFileSync(file, fileText(8, [animal(7, 'Added by hand')]));
    await untilListed(storage, ['First', 'Added by hand']);
    expect(await storage.get(1)).toEqual(first);
    expect((await storage.create(pet('Next'))).id).toBe(8);
    await storage.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets.map(({ name }: Pet) => name)).toEqual(['First', 'Added by hand', 'Next']);
  });

  it('Should let an edit remove what the document holds, and never give its ids again', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    fs.writeFileSync(file, fileText(3, [animal(1, 'Old'), animal(2, 'Older')]));
    const storage = await openJsonFileStorage({ file });
    fs.writeFileSync(file, fileText(2, [animal(1, 'Old')]));
    await untilListed(storage, ['Old']);
    expect((await storage.create(pet('Next'))).id).toBe(3);
    await storage.close();
  });

  it("Should show a valid edit in the service's pages, with a new ETag, the same page asked again", async () => {
    const { file, storage } = await openFresh();
    const service = createPetService({ storage, keys: [KEY], logger: { warn: () => {} } });
    const firstPage = () => service(new Request('http://localhost/v1/pets?limit=1', { headers: { authorization: `Bearer ${KEY}` } }));
    const [first] = [await storage.create(pet('First')), await storage.create(pet('Second'))];
    const before = await firstPage();
    expect(await before.json()).toEqual([first]);
    expect(await (await firstPage()).json()).toEqual([first]);
    fs.writeFileSync(file, fileText(3, [{ ...first!, name: 'First, renamed by hand' }, animal(2, 'Second')]));
    await untilListed(storage, ['First, renamed by hand', 'Second']);
    const after = await firstPage();
    expect(await after.json()).toEqual([{ ...first!, name: 'First, renamed by hand' }]);
    expect(after.headers.get('etag')).not.toBe(before.headers.get('etag'));
    await storage.close();
  });

  it('Should read an edit saved by rename, and own the new file as it owned the old', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    saveByRename(file, fileText(5, [first, animal(4, 'Saved by rename')]));
    await untilListed(storage, ['First', 'Saved by rename']);
    await expect(openJsonFileStorage({ file })).rejects.toThrow(DataFileLockedError);
    const next = await storage.create(pet('Next'));
    expect(next.id).toBe(5);
    expect(onDisk(file).pets.map(({ name }) => name)).toEqual(['First', 'Saved by rename', 'Next']);
    await storage.close();
  });

  it('Should refuse creates while the edited file is invalid, keep serving the last valid content, and never overwrite the edit', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    const broken = fileText(3, [first, { ...animal(2, 'Half typed'), categoryId: 0 }]);
    fs.writeFileSync(file, broken);

    const error = await storage.create(pet('Refused')).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'storage_unavailable', status: 503 });
    expect((error as Error).message).toContain('pets[1].categoryId must be a positive integer');
    const cause = (error as Error).cause as DataFileError;
    expect(cause).toBeInstanceOf(DataFileError);
    // Wrapped once: the refusal's cause is the file's problem, not a problem about a problem.
    expect(cause.cause).not.toBeInstanceOf(DataFileError);
    expect(cause.message).toContain(file);
    expect(cause.message).toContain('pets[1].categoryId must be a positive integer');
    expect(await storage.checkHealth!()).toEqual({ ok: false, reason: cause.message });

    expect(await storage.list({ after: 0, limit: 10 })).toEqual([first]);
    expect(fs.readFileSync(file, 'utf8')).toBe(broken);

    fs.writeFileSync(file, fileText(3, [first, animal(2, 'Typed in full')]));
    const next = await storage.create(pet('Accepted'));
    expect(next.id).toBe(3);
    expect(onDisk(file).pets.map(({ name }) => name)).toEqual(['First', 'Typed in full', 'Accepted']);
    expect(await storage.checkHealth!()).toEqual({ ok: true });
    await storage.close();
  });

  it('Should read an invalid edit once, not again for each create it refuses, and read the next edit', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    const reads = vi.spyOn(DurableTextFile.prototype, 'readWith');
    try {
      fs.writeFileSync(file, fileText(3, [first, { ...animal(2, 'Half typed'), categoryId: 0 }]));
      // Apart by more than the 20 ms after which a write looks at the file again.
      for (let attempt = 0; attempt < 5; attempt++) {
        await expect(storage.create(pet('Refused'))).rejects.toMatchObject({ status: 503 });
        await new Promise((resolve) => setTimeout(resolve, 30));
      }
      // However often the watch, the health check or a create looks, the file as it is was read once.
      expect(await storage.checkHealth!()).toMatchObject({ ok: false });
      expect(reads).toHaveBeenCalledTimes(1);
      fs.writeFileSync(file, fileText(3, [first, animal(2, 'Typed in full')]));
      expect((await storage.create(pet('Accepted'))).id).toBe(3);
      expect(reads).toHaveBeenCalledTimes(2);
    } finally {
      reads.mockRestore();
      await storage.close();
    }
  });

  it('Should answer a retried key from what it holds while the edited file is invalid, and refuse a new key', async () => {
    const { file, storage } = await openFresh();
    const key = (name: string) => ({
      scope: 'ab12',
      key: name,
      fingerprint: 'same-payload',
      createdAt: Date.now(),
      expiresAt: Date.now() + 60_000,
    });
    const first = await storage.createIdempotent(pet('First'), key('order-1'));
    fs.writeFileSync(file, fileText(3, [first.pet, { ...animal(2, 'Half typed'), categoryId: 0 }]));

    expect(await storage.createIdempotent(pet('First'), key('order-1'))).toMatchObject({ pet: first.pet, replayed: true });
    await expect(storage.createIdempotent(pet('Second'), key('order-2'))).rejects.toMatchObject({ code: 'storage_unavailable' });
    await storage.close();
  });

  it('Should keep every acknowledged create and never give its id again when an edit saves an older copy of the document', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    const olderCopy = fs.readFileSync(file, 'utf8');
    const second = await storage.create(pet('Second'));
    const third = await storage.create(pet('Third'));
    fs.writeFileSync(file, olderCopy);
    const next = await storage.create(pet('Next'));
    expect(next.id).toBe(4);
    // The creates since the document was last written whole are in the journal, kept on top of the older copy.
    expect(onDisk(file)).toMatchObject({ nextId: 5, pets: [first, second, third, next] });
    await storage.close();
  });

  it('Should refuse creates while the file is removed, and work again once it is back', async () => {
    const { file, storage } = await openFresh();
    const first = await storage.create(pet('First'));
    const saved = fs.readFileSync(file, 'utf8');
    fs.rmSync(file);
    const error = await storage.create(pet('Refused')).catch((thrown: unknown) => thrown);
    expect(error).toMatchObject({ code: 'storage_unavailable' });
    expect(((error as Error).cause as Error).message).toContain(`${file} was removed or moved away`);
    expect(fs.existsSync(file)).toBe(false);
    expect(await storage.get(1)).toEqual(first);

    fs.writeFileSync(file, saved);
    expect((await storage.create(pet('Back'))).id).toBe(2);
    await storage.close();
  });

  it('Should not overwrite an edit saved while a journal line is being written, and keep both', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    const { fs: controlled, control } = createControlledFileSystem(folder);
    const storage = await openJsonFileStorageOn({ file }, controlled);
    const held = gate();
    control.plans.set(control.writes + 1, { hold: held.closed });
    const writesBefore = control.writes;
    const creating = storage.create(pet('Under way'));
    await until(() => control.writes === writesBefore + 1, 'the write started');
    fs.writeFileSync(file, fileText(10, [animal(9, 'Saved meanwhile')]));
    held.open();
    // The line was checked against the document before the edit, so the create keeps its id;
    // the edit is read on top of the document and the journal replayed over it: both stay.
    const created = await creating;
    expect(created.id).toBe(1);
    await untilListed(storage, ['Under way', 'Saved meanwhile']);
    expect((await storage.create(pet('Next'))).id).toBe(10);
    expect(fs.readFileSync(file, 'utf8')).toBe(fileText(10, [animal(9, 'Saved meanwhile')]));
    await storage.close();
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets.map(({ name }: Pet) => name)).toEqual(['Under way', 'Saved meanwhile', 'Next']);
  });
});
