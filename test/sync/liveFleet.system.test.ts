/**
 * @module The operator's fleet, as the command line runs it: a hub on a keys file with
 * scopes and names, two kiosks with default settings (live pulls, push on create), 200
 * pulls waiting at the hub, and the keys file edited while all of it runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { waitForOutput } from '../support/nodeProcess.js';
import { killLeftoverProcesses, startCli } from '../support/startCli.js';
import { tempFolder } from '../support/tempFolder.js';

afterEach(killLeftoverProcesses);

const ADMIN = 'admin-key-of-the-operator-01';
const KIOSK_1 = 'sync-key-of-kiosk-number-1';
const KIOSK_2 = 'sync-key-of-kiosk-number-2';
const LOBBY = 'read-key-of-the-lobby-screen';
const PULLERS = 'sync-key-of-the-many-pullers';
const ADDED = 'a-key-added-while-running-01';
const LOCAL = 'local-key-of-each-kiosk-0001';

const keysFile = (lines: string[]) => `# the fleet's keys\n${lines.join('\n')}\n`;
const FIRST_KEYS = [
  ADMIN,
  `${KIOSK_1} sync name=kiosk-1`,
  `${KIOSK_2} sync name=kiosk-2`,
  `${LOBBY} read name=lobby`,
  `${PULLERS} sync name=pullers`,
];

const get = (url: string, key: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers } });
const create = async (url: string, key: string, name: string) => {
  const response = await get(`${url}/pets`, key, { method: 'POST', body: JSON.stringify({ name, categoryId: 1 }) });
  expect(response.status).toBe(201);
  return (await response.json()) as Pet;
};
const until = async (condition: () => Promise<boolean>, what: string, milliseconds = 15_000) => {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > milliseconds) throw new Error(`Not within ${milliseconds} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const lists = async (url: string, id: number) =>
  ((await (await get(`${url}/pets?limit=100`, LOCAL)).json()) as Pet[]).some((pet) => pet.id === id);

describe('a fleet an operator runs', () => {
  it('Should sync kiosks live with default settings, answer 200 waiting pulls with one create, keep scopes, and take keys file edits without a restart', {
    timeout: 120_000,
  }, async () => {
    const folder = tempFolder();
    const keys = path.join(folder, 'hub-keys');
    fs.writeFileSync(keys, keysFile(FIRST_KEYS), { mode: 0o600 });
    const hub = await startCli(['serve', path.join(folder, 'hub.json'), '--port', '0', '--api-key-file', keys, '--metrics']);
    // Default settings: no --sync-interval; pushes follow creates, pulls wait at the hub.
    const kiosk = (file: string, key: string) =>
      startCli(['serve', path.join(folder, file), '--port', '0', '--api-key', LOCAL, '--quiet', '--sync-with', hub.url], {
        env: { ANIMAL_STORE_SYNC_KEY: key },
      });
    const [one, two] = [await kiosk('one.json', KIOSK_1), await kiosk('two.json', KIOSK_2)];
    for (const node of [one, two]) {
      await until(async () => ((await (await get(`${node.url}/sync/status`, LOCAL)).json()) as { idsLeft: number }).idsLeft > 0, 'a lease');
    }

    // A create at one kiosk is listed at the other long before a round (5 s) comes.
    for (const [from, to] of [
      [one, two],
      [two, one],
    ] as const) {
      const pet = await create(from.url, LOCAL, 'Live');
      await until(() => lists(to.url, pet.id), 'the create listed at the other kiosk', 2_500);
    }

    // Scopes: the lobby reads and is refused a create; kiosks' sync keys cannot create at the hub.
    expect((await get(`${hub.url}/pets`, LOBBY)).status).toBe(200);
    const refused = await get(`${hub.url}/pets`, LOBBY, { method: 'POST', body: JSON.stringify({ name: 'No', categoryId: 1 }) });
    expect(refused.status).toBe(403);
    expect(((await refused.json()) as { message: string }).message).toMatch(/scope create/);
    expect((await get(`${hub.url}/pets`, KIOSK_1, { method: 'POST', body: '{"name":"No","categoryId":1}' })).status).toBe(403);

    // 200 pulls wait at the hub; one create answers every one of them.
    const last = ((await (await get(`${hub.url}/sync/pull?limit=5000`, ADMIN)).json()) as { checkpoint: number }).checkpoint;
    const waiting = Array.from({ length: 200 }, () => get(`${hub.url}/sync/pull?checkpoint=${last}&wait=30`, PULLERS));
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const rex = await create(hub.url, ADMIN, 'Rex');
    const answers = await Promise.all(waiting.map(async (answer) => (await answer).json()));
    expect(answers).toEqual(Array.from({ length: 200 }, () => ({ pets: [rex], checkpoint: rex.id })));

    // The fleet view names each sync key; the metrics carry each kiosk's last contact, by name.
    const { kiosks } = (await (await get(`${hub.url}/sync/kiosks`, ADMIN)).json()) as { kiosks: Array<Record<string, unknown>> };
    // The admin key may sync too (every scope): it is listed, by its fingerprint.
    expect(kiosks.map(({ name }) => name)).toEqual([expect.stringMatching(/^[0-9a-f]{12}$/), 'kiosk-1', 'kiosk-2', 'pullers']);
    expect(kiosks[1]).toMatchObject({ pushed: 1, blocks: 1, unusedBlocks: 0, lastPush: expect.any(String) });
    expect((await get(`${hub.url}/sync/kiosks`, LOBBY)).status).toBe(403);
    const metrics = await (await get(`${new URL(hub.url).origin}/metrics`, ADMIN)).text();
    expect(metrics).toMatch(/^animal_store_sync_kiosk_last_contact_timestamp_seconds\{kiosk="kiosk-1"\} \d/m);
    expect(metrics).toMatch(/^animal_store_key_requests_total\{key="lobby"\} \d/m);
    // The metrics need the scope read: a kiosk's sync key is refused them.
    expect((await get(`${new URL(hub.url).origin}/metrics`, LOBBY)).status).toBe(200);
    expect((await get(`${new URL(hub.url).origin}/metrics`, KIOSK_1)).status).toBe(403);

    // Edits while pulls wait: a file that cannot be used changes nothing and says why, without a key.
    const stillWaiting = Array.from({ length: 20 }, () => get(`${hub.url}/sync/pull?checkpoint=${rex.id}&wait=30`, PULLERS));
    fs.writeFileSync(keys, keysFile([...FIRST_KEYS, 'too-short']));
    await waitForOutput(hub, /the API keys were not changed, the keys in force are kept: the API key from line 7/, 5_000, 'stderr');
    expect((await get(`${hub.url}/pets`, LOBBY)).status).toBe(200);
    // A usable edit: the pullers' key removed (its waiting pulls end), a key added; within 2 s.
    fs.writeFileSync(keys, keysFile([ADMIN, `${KIOSK_1} sync name=kiosk-1`, `${KIOSK_2} sync name=kiosk-2`, `${ADDED} read`]));
    expect((await Promise.all(stillWaiting)).map(({ status }) => status)).toEqual(Array.from({ length: 20 }, () => 401));
    await until(async () => (await get(`${hub.url}/pets`, ADDED)).status === 200, 'the added key accepted', 2_000);
    expect((await get(`${hub.url}/pets`, LOBBY)).status).toBe(401);
    // The kiosks synced on, through every edit.
    const after = await create(one.url, LOCAL, 'After the edits');
    await until(() => lists(two.url, after.id), 'a create after the edits at the other kiosk', 2_500);
    // SIGHUP reads the file again, and never stops the server.
    fs.writeFileSync(keys, keysFile([ADMIN, `${KIOSK_1} sync name=kiosk-1`, `${KIOSK_2} sync name=kiosk-2`, `${LOBBY} read name=lobby`]));
    hub.child.kill('SIGHUP');
    await until(async () => (await get(`${hub.url}/pets`, LOBBY)).status === 200, 'the lobby key back after SIGHUP', 2_000);
    const log = hub.stdout() + hub.stderr();
    for (const key of [ADMIN, KIOSK_1, KIOSK_2, LOBBY, PULLERS, ADDED]) expect(log).not.toContain(key);
    expect(hub.stdout()).toMatch(/GET \/v1\/pets 200 [\d.]+ms lobby/);
  });
});
