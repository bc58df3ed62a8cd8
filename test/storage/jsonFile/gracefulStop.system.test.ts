import { describe, expect, it } from 'vitest';
import { createStream, postPet, readDataFile, startServer, tempDataFile, until } from '../../support/serverProcess.js';

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
