import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { DurableTextFile } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempFolder } from '../../support/tempFolder.js';
import { settled } from './controlledFileSystem.js';
import { fillDiskForGood, setReadOnly, smallDisk } from './mount.js';
import { untilHealth } from './untilHealth.js';

const pet = (name: string) => ({ name, categoryId: 1, status: 'available' as const });

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

  it('Should tell once that the file cannot be written whole on a full disk, keep creating into its journal, and tell when it can again and when the stop could not', async () => {
    const disk = tempFolder();
    await smallDisk(disk, 2048);
    const file = path.join(disk, 'animals.json');
    const journal = `${file}.journal`;
    const warnings: string[] = [];
    const replace = vi.spyOn(DurableTextFile.prototype, 'replace');
    const options = { file, journalMinBytes: 16 * 1024, log: { warn: (message: string) => warnings.push(message) } };
    let storage = await openJsonFileStorage(options);
    const created: number[] = [];
    const createSome = async (count: number, name: string) => {
      for (let at = 0; at < count; at += 100) {
        const pets = await Promise.all(Array.from({ length: Math.min(100, count - at) }, () => storage.create(pet(name))));
        created.push(...pets.map(({ id }) => id));
      }
    };
    await createSome(3000, 'Before the disk filled');
    await settled(replace);
    const document = fs.statSync(file).size;
    expect(document).toBeGreaterThan(100_000);
    expect(warnings).toEqual([]);

    // Room for the journal to outgrow the document, not for the document written whole beside them.
    const filler = path.join(disk, 'filler');
    await fillDiskForGood(filler);
    fs.truncateSync(filler, fs.statSync(filler).size - Math.round(1.2 * document));
    while (warnings.length === 0 && fs.statSync(journal).size < 1.1 * document) await createSome(100, 'Into the journal');
    await settled(replace);
    // Asked before the write, which is not begun: the room stays for the journal's appends.
    const noRoom = /: The data file .* cannot be written: no space left on device: [\d.]+ MiB free, a write needs [\d.]+ MiB \(ENOSPC\)$/;
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(
      / keeps every change and grows past its bound \([\d.]+ of [\d.]+ MiB\) until it is; tried again every 5 s and at the stop: /,
    );
    expect(warnings[0]!.startsWith(`the data file ${file} is not written whole, so its journal ${journal} keeps`)).toBe(true);
    expect(warnings[0]).toMatch(noRoom);
    // Creates go on into the journal, and a second try, failing the same way, is not told again.
    const now = Date.now();
    const tries = replace.mock.calls.length;
    const clock = vi.spyOn(Date, 'now').mockImplementation(() => now + 6_000);
    await createSome(50, 'Still into the journal');
    await settled(replace);
    expect(replace.mock.calls.length).toBe(tries + 1);
    expect(warnings).toHaveLength(1);

    // Room again: the next try writes the file whole, and says so.
    fs.rmSync(filler);
    clock.mockImplementation(() => now + 12_000);
    await createSome(50, 'With room again');
    await settled(replace);
    expect(warnings).toHaveLength(2);
    expect(warnings[1]).toBe(`the data file ${file} is written whole again; its journal is back within its bound`);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets.length).toBeGreaterThan(3000);
    clock.mockRestore();

    // A stop on a full disk leaves the journal beside the file, says so, and the next start reads both.
    await createSome(100, 'Before the stop');
    await fillDiskForGood(filler);
    await storage.close();
    expect(warnings).toHaveLength(3);
    expect(warnings[2]!.startsWith(`the data file ${file} was not written whole at the stop, so its journal ${journal} (`)).toBe(true);
    expect(warnings[2]).toMatch(/, every change kept, and the next start reads both: /);
    expect(warnings[2]).toMatch(noRoom);
    expect(fs.statSync(journal).size).toBeGreaterThan(0);
    fs.rmSync(filler);
    storage = await openJsonFileStorage(options);
    expect((await storage.list({ after: 0, limit: 100_000 })).map(({ id }) => id)).toEqual(created);
    await storage.close();
    replace.mockRestore();
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
