import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getJson, postPet, readDataFile, startServer, tempDataFile } from '../../support/serverProcess.js';

/** Resolves once `condition` holds, checking every 50 ms; fails after 10 s. */
const until = async (condition: () => Promise<boolean>, what: string) => {
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
    if (await condition()) return;
  }
  throw new Error(`Timed out waiting until ${what}`);
};

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
    // The liveness probe says the storage cannot write, with the cause and when to look again.
    const health = await fetch(`${new URL(server.url).origin}/healthz`);
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await health.json()).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/ENOSPC/) });
    // The operator reads the cause once, not a stack per refused create.
    const failures = server
      .stderr()
      .split('\n')
      .filter((line) => line.includes('storage failing'));
    expect(failures).toEqual([expect.stringMatching(/ENOSPC/)]);
    expect(server.stderr()).not.toMatch(/\n\s+at /);

    fs.rmSync(diskFull);
    // Healthy again as soon as the disk is, before any create comes in.
    await until(async () => (await fetch(`${new URL(server.url).origin}/healthz`)).status === 200, 'the storage is healthy again');
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
