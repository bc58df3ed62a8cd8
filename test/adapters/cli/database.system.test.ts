/** @module The real CLI on PostgreSQL: `serve --database`, shared cursors, a database that fails, and `copy`. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readDataFile } from '../../support/serverProcess.js';
import { killLeftoverProcesses, runCli, startCli } from '../../support/startCli.js';
import { startTcpProxy } from '../../support/tcpProxy.js';
import { tempFolder } from '../../support/tempFolder.js';
import { useTestDatabase } from '../../support/testDatabase.js';

const database = useTestDatabase();
afterEach(killLeftoverProcesses);

const KEY = 'cli-database-test-key';
const SECRET = 'shared-cursor-secret-1';
const authed = { authorization: `Bearer ${KEY}` };

const post = (url: string, body: unknown) =>
  fetch(`${url}/pets`, { method: 'POST', headers: { ...authed, 'content-type': 'application/json' }, body: JSON.stringify(body) });
const get = (url: string, pathAndQuery: string) => fetch(`${url}${pathAndQuery}`, { headers: authed });
const serveOn = (databaseUrl: string, env: Record<string, string> = {}) =>
  startCli(['serve', '--port', '0', '--database', databaseUrl, '--api-key', KEY, '--quiet'], { env });

describe('animal-store serve --database', () => {
  it('keeps animals in PostgreSQL, shared by every instance, with cursors any instance can follow', async () => {
    const url = await database.freshDatabase();
    const one = await serveOn(url, { ANIMAL_STORE_CURSOR_SECRET: SECRET });
    const two = await startCli(['serve', '--port', '0', '--api-key', KEY, '--cursor-secret', SECRET, '--quiet'], {
      env: { DATABASE_URL: url },
    });
    for (const [index, name] of ['Rex', 'Tom', 'Kiki'].entries()) {
      const created = await post(index % 2 ? two.url : one.url, { name, categoryId: 1 });
      expect(created.status).toBe(201);
      expect(await created.json()).toMatchObject({ id: index + 1, name });
    }
    // A page from one instance, its next link followed on the other.
    const first = await get(one.url, '/pets?limit=2');
    expect((await first.json()).map((pet: { name: string }) => pet.name)).toEqual(['Rex', 'Tom']);
    const next = /<([^>]+)>; rel="next"/.exec(first.headers.get('link') ?? '')?.[1];
    expect(next).toBeDefined();
    const second = await fetch(new URL(next!, two.url), { headers: authed });
    expect(second.status).toBe(200);
    expect(await second.json()).toEqual([{ id: 3, name: 'Kiki', categoryId: 1, status: 'available' }]);
    // An instance with another secret refuses the cursor.
    const other = await startCli(['serve', '--port', '0', '--database', url, '--api-key', KEY, '--quiet'], {
      env: { ANIMAL_STORE_CURSOR_SECRET: 'a-different-secret-2' },
    });
    expect((await fetch(new URL(next!, other.url), { headers: authed })).status).toBe(400);

    // Stopped and started again, the animals are still there and ids carry on.
    one.child.kill('SIGTERM');
    expect((await one.exited).code).toBe(0);
    const again = await serveOn(url);
    expect((await (await get(again.url, '/pets')).json()).length).toBe(3);
    expect(await (await post(again.url, { name: 'Mochi', categoryId: 2 })).json()).toMatchObject({ id: 4 });
  });

  it('answers 503 storage_unavailable while the database is out of reach, keeps running, and recovers by itself', async () => {
    const url = new URL(await database.freshDatabase());
    const proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port) });
    url.port = String(proxy.port);
    const cli = await serveOn(url.href);
    expect((await post(cli.url, { name: 'Before', categoryId: 1 })).status).toBe(201);

    await proxy.cut();
    for (const response of [await post(cli.url, { name: 'Lost', categoryId: 1 }), await get(cli.url, '/pets')]) {
      expect(response.status).toBe(503);
      expect(await response.json()).toMatchObject({ code: 'storage_unavailable', status: 503 });
    }
    // The operator's log says why; the client was told nothing of it.
    expect(cli.stderr()).toMatch(/storage failing.*ECONNREFUSED/);

    await proxy.restore();
    expect(await (await post(cli.url, { name: 'After', categoryId: 1 })).json()).toMatchObject({ id: 2, name: 'After' });
    expect((await (await get(cli.url, '/pets')).json()).map((pet: { name: string }) => pet.name)).toEqual(['Before', 'After']);
    await proxy.close();
  });

  it('refuses to start when the database cannot be reached, saying so without the password, exit code 1', async () => {
    const cli = runCli(['serve', '--port', '0', '--database', 'postgres://store:hunter2@127.0.0.1:1/animals', '--api-key', KEY]);
    expect((await cli.exited).code).toBe(1);
    expect(cli.stderr()).toMatch(/^animal-store: The PostgreSQL storage cannot open postgres:\/\/store@127\.0\.0\.1:1\/animals/);
    expect(cli.stderr() + cli.stdout()).not.toContain('hunter2');
  });

  it('answers --database with --memory with a usage error, exit code 2', async () => {
    const cli = runCli(['serve', '--database', database.url(), '--memory']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^animal-store: --database and --memory exclude each other/);
  });
});

describe('animal-store copy', () => {
  it('moves a data file into PostgreSQL and back, refusing a target that holds animals unless told', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    const first = await startCli(['serve', '--port', '0', '--data', file, '--api-key', KEY, '--quiet']);
    for (const name of ['Rex', 'Tom', 'Kiki']) expect((await post(first.url, { name, categoryId: 1 })).status).toBe(201);
    first.child.kill('SIGTERM');
    await first.exited;

    const url = await database.freshDatabase();
    const copy = runCli(['copy', '--from', file, '--to', url]);
    expect((await copy.exited).code).toBe(0);
    expect(copy.stdout()).toBe(`copied 3 animals, 0 Idempotency-Keys and the next id 4 from ${file} to ${url} (schema animal_store)\n`);

    const served = await serveOn(url);
    expect(await (await post(served.url, { name: 'Mochi', categoryId: 2 })).json()).toMatchObject({ id: 4 });

    const again = runCli(['copy', '--from', file, '--to', url]);
    expect((await again.exited).code).toBe(1);
    expect(again.stderr()).toMatch(
      /already holds a catalogue \(4 animals, next id 5\); nothing was copied\..* Give --replace to replace it\.\n$/,
    );

    const back = path.join(folder, 'back.json');
    const home = runCli(['copy', '--from', url, '--to', back]);
    expect((await home.exited).code).toBe(0);
    expect(readDataFile(back)).toMatchObject({ nextId: 5, pets: [{ name: 'Rex' }, { name: 'Tom' }, { name: 'Kiki' }, { name: 'Mochi' }] });

    const replaced = runCli(['copy', '--from', file, '--to', back, '--replace']);
    expect((await replaced.exited).code).toBe(0);
    expect(fs.readFileSync(back, 'utf8')).toBe(fs.readFileSync(file, 'utf8'));
  });

  it('answers a copy without --to with a usage error, exit code 2', async () => {
    const cli = runCli(['copy', '--from', 'a.json']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/^animal-store: copy needs --to/);
  });
});
