import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { until } from './controlledFileSystem.js';
import { journalLines, readDataFile } from './readDataFile.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const key = (name: string, createdAt = Date.now()) => ({
  scope: 'a1b2c3d4e5f6',
  key: name,
  fingerprint: 'digest-of-payload',
  createdAt,
  expiresAt: createdAt + 86_400_000,
});

/** Copies the data file and its journal as they are on disk now: what a crash at this moment leaves. */
const crashCopy = (file: string): string => {
  const copy = path.join(tempFolder(), 'animals.json');
  fs.copyFileSync(file, copy);
  if (fs.existsSync(`${file}.journal`)) fs.copyFileSync(`${file}.journal`, `${copy}.journal`);
  return copy;
};

describe('the JSON data file and its journal', () => {
  it('Should serve, after a crash, every animal and key its journal holds, and replay a retried key', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file });
    const created = [];
    for (const name of ['one', 'two', 'three']) created.push(await storage.createIdempotent(rex, key(name)));
    expect(journalLines(file)).toHaveLength(3);
    const copy = crashCopy(file);
    await storage.close();

    const restarted = await openJsonFileStorage({ file: copy });
    expect(await restarted.list({ after: 0, limit: 10 })).toEqual(created.map(({ pet }) => pet));
    expect(await restarted.createIdempotent(rex, key('two'))).toMatchObject({ pet: created[1]!.pet, replayed: true });
    expect((await restarted.create(rex)).id).toBe(4);
    await restarted.close();
  });

  it('Should drop a torn last line of the journal (a crash mid-append), keep every whole one, and go on after them', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file });
    const kept = [await storage.create(rex), await storage.create(rex)];
    const copy = crashCopy(file);
    await storage.close();
    // A line whose end never reached the disk, as a crash mid-append leaves it.
    const whole = fs.readFileSync(`${copy}.journal`);
    const torn = '0123456789abcdef {"format":2,"nextId":4,"pets":[{"id":3,"name":"Torn","categ';
    fs.appendFileSync(`${copy}.journal`, torn);

    const restarted = await openJsonFileStorage({ file: copy });
    expect(await restarted.list({ after: 0, limit: 10 })).toEqual(kept);
    // Cut off at the open, before anything is appended after it.
    expect(fs.readFileSync(`${copy}.journal`)).toEqual(whole);
    const next = await restarted.create(rex);
    expect(next.id).toBe(3);
    expect(readDataFile(copy).pets).toEqual([...kept, next]);
    await restarted.close();
  });

  it('Should drop a whole line whose checksum does not match, and every line after it', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file });
    const first = await storage.create(rex);
    await storage.create(rex);
    const copy = crashCopy(file);
    await storage.close();
    const [line1, line2] = fs.readFileSync(`${copy}.journal`, 'utf8').split('\n');
    fs.writeFileSync(`${copy}.journal`, `${line1}\n${line2!.replace('Rex', 'Rox')}\n`);
    const restarted = await openJsonFileStorage({ file: copy });
    expect(await restarted.list({ after: 0, limit: 10 })).toEqual([first]);
    await restarted.close();
  });

  it('Should not add again what the document already holds, as a crash between a whole write and emptying the journal leaves it', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file });
    const pets = [(await storage.createIdempotent(rex, key('a'))).pet, (await storage.createIdempotent(rex, key('b'))).pet];
    const journal = fs.readFileSync(`${file}.journal`);
    await storage.close();
    // The document now holds both; the journal as it was before it was emptied.
    fs.writeFileSync(`${file}.journal`, journal);
    const reopened = await openJsonFileStorage({ file });
    expect(await reopened.list({ after: 0, limit: 10 })).toEqual(pets);
    await reopened.close();
    const document = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(document.pets).toEqual(pets);
    expect(document.idempotencyKeys.map(({ key: name }: { key: string }) => name)).toEqual(['a', 'b']);
  });

  it('Should write the document whole once the journal outgrows it, keeping in the journal only what came since, and serve the same', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file, journalMinBytes: 4096 });
    const created = [];
    for (let count = 0; count < 60; count++) created.push((await storage.createIdempotent(rex, key(`k${count}`))).pet);
    // Written whole at least once, the journal then keeping only the lines appended since
    // (creates went on while the last whole write ran), within its bound: the document's size.
    await until(
      () =>
        JSON.parse(fs.readFileSync(file, 'utf8')).pets.length > 20 &&
        fs.statSync(`${file}.journal`).size <= Math.max(4096, fs.statSync(file).size),
      'the journal was written into the document',
    );
    expect(readDataFile(file).pets).toEqual(created);
    expect(readDataFile(file).idempotencyKeys).toHaveLength(60);
    expect(await storage.list({ after: 0, limit: 100 })).toEqual(created);
    await storage.close();
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets).toEqual(created);
  });

  it('Should refuse to start on a journal line that checks but is not a valid change, naming the journal, and change nothing', async () => {
    const file = path.join(tempFolder(), 'animals.json');
    const storage = await openJsonFileStorage({ file });
    await storage.create(rex);
    const copy = crashCopy(file);
    await storage.close();
    const { createHash } = await import('node:crypto');
    const change = '{"format":2,"nextId":3,"pets":[{"id":2,"name":"","categoryId":1,"status":"sold"}],"idempotencyKeys":[]}';
    fs.appendFileSync(`${copy}.journal`, `${createHash('sha256').update(change).digest('hex').slice(0, 16)} ${change}\n`);
    const before = fs.readFileSync(`${copy}.journal`);
    await expect(openJsonFileStorage({ file: copy })).rejects.toThrow(/line 2 of its journal is not a valid change \(pets\[0\]\.name/);
    expect(fs.readFileSync(`${copy}.journal`)).toEqual(before);
  });
});
