import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getJson, postPet, readDataFile, startServer, tempDataFile } from '../../support/serverProcess.js';

const PRELOAD = './test/storage/jsonFile/failingDiskPreload.ts';

describe('the real server on a failing disk', () => {
  it('Should answer 503 storage_unavailable, show nothing of the failed create, and work again once the disk does', async () => {
    const file = tempDataFile();
    const diskFull = `${file}.disk-full`;
    const server = await startServer(file, { preload: [PRELOAD], env: { ANIMAL_STORE_TEST_DISK_FULL_WHILE: diskFull } });

    const before = await postPet(server.url, { name: 'Before', categoryId: 1 });
    expect(before.status).toBe(201);

    fs.writeFileSync(diskFull, '');
    const failed = await Promise.all([1, 2, 3].map((n) => postPet(server.url, { name: `Lost ${n}`, categoryId: 1 })));
    for (const { status, body } of failed) {
      expect(status).toBe(503);
      expect(body).toMatchObject({ code: 'storage_unavailable', status: 503 });
    }
    expect((await getJson(server.url, '/pets')).body).toEqual([before.body]);
    expect((await getJson(server.url, '/pets/2')).status).toBe(404);
    expect(readDataFile(file).pets).toEqual([before.body]);

    fs.rmSync(diskFull);
    const after = await postPet(server.url, { name: 'After', categoryId: 2, status: 'sold' });
    expect(after.status).toBe(201);
    expect(after.body).toMatchObject({ name: 'After', status: 'sold' });
    expect((await getJson(server.url, '/pets')).body).toEqual([before.body, after.body]);
    expect(readDataFile(file).pets).toEqual([before.body, after.body]);

    server.child.kill('SIGTERM');
    expect((await server.exited).code).toBe(0);
    expect(readDataFile(file).pets).toEqual([before.body, after.body]);
  });
});
