import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForOutput } from '../support/nodeProcess.js';
import { killLeftoverProcesses, runCli, startCli } from '../support/startCli.js';
import { startTcpProxy } from '../support/tcpProxy.js';
import { tempFolder } from '../support/tempFolder.js';
import { HUB_KEY, KIOSK_KEY } from './fleet.js';

afterEach(killLeftoverProcesses);

const authorized = { authorization: `Bearer ${KIOSK_KEY}` };
const post = (url: string, name: string) =>
  fetch(`${url}/pets`, {
    method: 'POST',
    headers: { ...authorized, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });
const statusOf = async (url: string) =>
  (await (await fetch(`${url}/sync/status`, { headers: authorized })).json()) as Record<string, unknown>;
const until = async (condition: () => Promise<boolean>, what: string) => {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > 15_000) throw new Error(`Not within 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

const kioskArgs = (file: string, hub: string) => [
  'serve',
  file,
  '--port',
  '0',
  '--api-key',
  KIOSK_KEY,
  '--quiet',
  '--metrics',
  '--sync-with',
  hub,
  '--sync-key',
  HUB_KEY,
  '--sync-interval',
  '0.1',
  '--log-format',
  'json',
];

describe('a kiosk', () => {
  it('Should start and serve with its hub out of reach, refusing creates with a 503 that says why until it first reaches the hub', async () => {
    const folder = tempFolder();
    const hub = await startCli(['serve', path.join(folder, 'hub.json'), '--port', '0', '--api-key', HUB_KEY, '--quiet']);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(hub.url).port) });
    await proxy.cut();
    const kiosk = runCli(kioskArgs(path.join(folder, 'kiosk.json'), `http://127.0.0.1:${proxy.port}/v1`));
    // A JSON line: the URL ends at its closing quote.
    const kioskUrl = (await waitForOutput(kiosk, /listening on (http:\/\/[^\s"]+)/))[1]!;

    expect((await fetch(`${kioskUrl}/pets`, { headers: authorized })).status).toBe(200);
    const refused = await post(kioskUrl, 'Too early');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^[0-9]+$/);
    expect(((await refused.json()) as { message: string }).message).toMatch(/has not reached its hub/);
    await until(async () => (await statusOf(kioskUrl)).problem !== 'not tried yet', 'a first round');
    expect(await statusOf(kioskUrl)).toMatchObject({ reachable: false, waiting: 0, lastPush: null, lastPull: null });

    await proxy.restore();
    await until(async () => (await statusOf(kioskUrl)).reachable === true, 'the hub reached');
    // Cut again: creates are now acknowledged locally, wait, and are shown waiting everywhere.
    await proxy.cut();
    const created = [];
    for (const name of ['One', 'Two', 'Three']) {
      const response = await post(kioskUrl, name);
      expect(response.status).toBe(201);
      created.push(await response.json());
    }
    await until(async () => (await statusOf(kioskUrl)).reachable === false, 'the cut noticed');
    expect(await statusOf(kioskUrl)).toMatchObject({ reachable: false, waiting: 3 });
    const metrics = await (await fetch(`${new URL(kioskUrl).origin}/metrics`, { headers: authorized })).text();
    expect(metrics).toMatch(/^animal_store_sync_waiting 3$/m);
    expect(metrics).toMatch(/^animal_store_sync_reachable 0$/m);

    await proxy.restore();
    await until(async () => (await statusOf(kioskUrl)).waiting === 0, 'the creates pushed');
    const atHub = (await (
      await fetch(`${hub.url}/pets?limit=100`, { headers: { authorization: `Bearer ${HUB_KEY}` } })
    ).json()) as unknown[];
    expect(atHub).toEqual(created);
    await proxy.close();
  });

  it('Should acknowledge a keyed create sent the moment it listens, once its first lease is kept, and replay it on a retry', async () => {
    const folder = tempFolder();
    const hub = await startCli(['serve', path.join(folder, 'hub.json'), '--port', '0', '--api-key', HUB_KEY, '--quiet']);
    // Fresh kiosks, each asked before its first round could lease (most were refused with a 503 before creates waited for the lease).
    for (const name of ['first', 'second', 'third']) {
      const kiosk = runCli(kioskArgs(path.join(folder, `${name}.json`), hub.url));
      const kioskUrl = (await waitForOutput(kiosk, /listening on (http:\/\/[^\s"]+)/))[1]!;
      const send = () =>
        fetch(`${kioskUrl}/pets`, {
          method: 'POST',
          headers: { ...authorized, 'content-type': 'application/json', 'idempotency-key': `"${name}"` },
          body: JSON.stringify({ name, categoryId: 1 }),
        });
      const created = await send();
      expect(created.status).toBe(201);
      const pet = await created.json();
      const retried = await send();
      expect(retried.headers.get('idempotent-replayed')).toBe('true');
      expect(await retried.json()).toEqual(pet);
      kiosk.child.kill();
      await kiosk.exited;
    }
  });

  it('Should refuse to start on a data file holding animals made without sync, naming animal-store copy', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'island.json');
    fs.writeFileSync(
      file,
      JSON.stringify({ format: 2, nextId: 2, pets: [{ id: 1, name: 'Rex', categoryId: 1, status: 'sold' }], idempotencyKeys: [] }),
    );
    const kiosk = runCli(kioskArgs(file, 'http://127.0.0.1:9/v1'));
    const exit = await kiosk.exited;
    expect(exit.code).toBe(1);
    expect(kiosk.stderr()).toMatch(/holds 1 animal made without sync.*animal-store copy --from/);
  });

  it('Should refuse --sync-with without --sync-key, as a command-line mistake', async () => {
    const cli = runCli(['serve', '--memory', '--api-key', KIOSK_KEY, '--sync-with', 'http://127.0.0.1:9/v1']);
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(/--sync-with needs --sync-key/);
  });
});
