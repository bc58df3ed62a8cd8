import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { getJson, postPet, readDataFile, startServer, tempDataFile } from '../../support/serverProcess.js';

describe('the real server on a data file edited by hand while it runs', () => {
  it('Should keep the edit, serve it, and give the next animal an id no one has had', async () => {
    const file = tempDataFile();
    const server = await startServer(file);
    const first = await postPet(server.url, { name: 'First', categoryId: 1 });
    expect(first.status).toBe(201);

    // As a json-server user would: open the file, add an animal, save.
    const edited = readDataFile(file);
    const byHand = { id: 2, name: 'Added by hand', categoryId: 4, status: 'pending' as const };
    fs.writeFileSync(file, JSON.stringify({ format: 2, nextId: 3, pets: [...edited.pets, byHand], idempotencyKeys: [] }, null, 2));

    const next = await postPet(server.url, { name: 'Next', categoryId: 1 });
    expect(next.status).toBe(201);
    expect((next.body as { id: number }).id).toBe(3);
    expect((await getJson(server.url, '/pets/2')).body).toEqual(byHand);
    expect(readDataFile(file).pets).toEqual([first.body, byHand, next.body]);

    // A broken save refuses creates (503) and leaves the file as the person saved it.
    fs.writeFileSync(file, '{"format":2,"nextId":4,"pets":[');
    const refused = await postPet(server.url, { name: 'Refused', categoryId: 1 });
    expect(refused).toMatchObject({ status: 503, body: { code: 'storage_unavailable' } });
    expect(fs.readFileSync(file, 'utf8')).toBe('{"format":2,"nextId":4,"pets":[');
    expect((await getJson(server.url, '/pets/3')).body).toEqual(next.body);
  });
});
