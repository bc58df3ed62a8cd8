import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createStream,
  getJson,
  postPet,
  readDataFile,
  readDocument,
  startServer,
  tempDataFile,
  until,
} from '../../support/serverProcess.js';
import { tempFolder } from '../../support/tempFolder.js';
import { fillDiskForGood, smallDisk } from './mount.js';

describe('the real server stopped with SIGTERM while creating', () => {
  it('Should exit 0 with every acknowledged animal on disk, and free the file at once', async () => {
    const file = tempDataFile();
    const server = await startServer(file);
    const stream = createStream(server.url, 8);
    await until(() => stream.acknowledged.length >= 20, 'twenty creates were acknowledged');

    server.child.kill('SIGTERM');
    const exit = await server.exited;
    await stream.stop();
    expect(exit).toEqual({ code: 0, signal: null });
    expect(stream.otherStatuses.filter((status) => status !== 503)).toEqual([]);

    const onDisk = new Map(readDataFile(file).pets.map((pet) => [pet.id, pet]));
    for (const pet of stream.acknowledged) expect(onDisk.get(pet.id)).toEqual(pet);

    // The lock went with the process: a new server starts on the file straight away.
    const next = await startServer(file);
    const created = await postPet(next.url, { name: 'Next', categoryId: 1 });
    expect(created.status).toBe(201);
    expect((created.body as { id: number }).id).toBeGreaterThan(Math.max(...onDisk.keys()));
  });
});

describe('the real server stopped on a full disk', () => {
  it('Should exit 0, say the journal stays beside the file, and serve every animal at the next start', async () => {
    const disk = tempFolder();
    await smallDisk(disk, 1024);
    const file = path.join(disk, 'animals.json');
    const server = await startServer(file);
    const ids: number[] = [];
    for (let count = 0; count < 20; count++) {
      const created = await postPet(server.url, { name: `Kept ${count}`, categoryId: 1 });
      expect(created.status).toBe(201);
      ids.push((created.body as { id: number }).id);
    }
    const filler = path.join(disk, 'filler');
    await fillDiskForGood(filler);

    server.child.kill('SIGTERM');
    expect(await server.exited).toEqual({ code: 0, signal: null });
    expect(server.stderr()).toMatch(
      new RegExp(
        `warning: the data file ${file} was not written whole at the stop, so its journal ${file}\\.journal \\([\\d.]+ MiB\\) stays beside it, every change kept, and the next start reads both: .*\\(ENOSPC\\)\n`,
      ),
    );
    expect(readDocument(file).pets).toEqual([]);
    expect(fs.statSync(`${file}.journal`).size).toBeGreaterThan(0);

    fs.rmSync(filler);
    const next = await startServer(file);
    const listed = await getJson(next.url, '/pets?limit=100');
    expect((listed.body as { id: number }[]).map(({ id }) => id)).toEqual(ids);
    next.child.kill('SIGTERM');
    expect(await next.exited).toEqual({ code: 0, signal: null });
    expect(next.stderr()).toBe('');
    expect(readDocument(file).pets.map(({ id }) => id)).toEqual(ids);
  });
});
