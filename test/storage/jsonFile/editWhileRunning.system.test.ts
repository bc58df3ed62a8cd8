import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { journalPath } from '../../../storage/durableFile/index.js';
import { crash, getJson, postPet, readDataFile, readDocument, startServer, tempDataFile, until } from '../../support/serverProcess.js';

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

  it('Should put its journal back when someone removes or moves it away, so a crash after keeps every animal', async () => {
    const file = tempDataFile();
    const server = await startServer(file);
    const created = [await postPet(server.url, { name: 'Before', categoryId: 1 })];
    // The journal holds the creates since the last whole write: the document has none yet.
    expect(readDocument(file).pets).toEqual([]);
    const removed = 'was removed or replaced while the server ran; it is written again under its name with every change it held';

    // Tidied away with no create after it: the server notices the folder change on its own.
    fs.unlinkSync(journalPath(file));
    await until(() => fs.existsSync(journalPath(file)), 'the journal is back under its name');
    created.push(await postPet(server.url, { name: 'After the removal', categoryId: 1 }));

    // Moved away: the next create puts it back first, then appends to it.
    fs.renameSync(journalPath(file), path.join(path.dirname(file), 'moved.journal'));
    created.push(await postPet(server.url, { name: 'After the move', categoryId: 1 }));
    expect(created.map(({ status }) => status)).toEqual([201, 201, 201]);
    await until(() => server.stderr().split(removed).length === 3, 'two warnings');
    expect(server.stderr()).toContain(`warning: the journal ${journalPath(file)} ${removed}`);

    await crash(server);
    const restarted = await startServer(file);
    expect((await getJson(restarted.url, '/pets')).body).toEqual(created.map(({ body }) => body));
    await crash(restarted);
  });
});
