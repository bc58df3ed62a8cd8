/**
 * Sync that cannot be misused, against the built bin as users run it: intruding leases and
 * pushes at a kiosk, a corrected hub URL, test mode and seeds beside sync, a refused key,
 * the status during an outage, and SIGHUP.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../core/schemas/Pet.js';
import { ensureBuilt, runBuiltCli, startBuiltCli } from '../support/builtCli.js';
import { type NodeProcess, waitForOutput } from '../support/nodeProcess.js';
import { killLeftoverProcesses } from '../support/startCli.js';
import { tempFolder } from '../support/tempFolder.js';
import { freePort, HUB_KEY, KIOSK_KEY } from './fleet.js';

afterEach(killLeftoverProcesses);
beforeAll(ensureBuilt, 240_000);

const as = (key: string) => ({ authorization: `Bearer ${key}` });
const post = (url: string, path: string, key: string, body?: unknown) =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { ...as(key), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
const create = (url: string, name: string, key = KIOSK_KEY) => post(url, '/pets', key, { name, categoryId: 1, status: 'available' });
const statusOf = async (url: string) =>
  (await (await fetch(`${url}/sync/status`, { headers: as(KIOSK_KEY) })).json()) as Record<string, unknown>;
const listOf = async (url: string, key: string) => (await (await fetch(`${url}/pets?limit=100`, { headers: as(key) })).json()) as Pet[];
const until = async (condition: () => Promise<boolean>, what: string) => {
  for (const started = Date.now(); !(await condition()); ) {
    if (Date.now() - started > 15_000) throw new Error(`Not within 15 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};
const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
const stop = async (node: NodeProcess) => {
  node.child.kill('SIGTERM');
  return node.exited;
};

const startHub = (file: string, port = 0) =>
  startBuiltCli(['serve', file, '--port', String(port), '--api-key', HUB_KEY, '--quiet', '--log-format', 'json']);
const kioskArgs = (file: string, hub: string, syncKey = HUB_KEY, port = 0) => [
  'serve',
  file,
  '--port',
  String(port),
  '--api-key',
  KIOSK_KEY,
  '--quiet',
  '--log-format',
  'json',
  '--sync-with',
  hub,
  '--sync-key',
  syncKey,
  '--sync-interval',
  '0.1',
];

describe('a kiosk, whatever its clients send', () => {
  it('Should refuse a lease and a push sent with its own client key (409 sync_conflict), store nothing, and keep creating and restarting', async () => {
    const folder = tempFolder();
    const hub = await startHub(path.join(folder, 'hub.json'));
    expect((await create(hub.url, 'From the hub', HUB_KEY)).status).toBe(201);
    const kioskFile = path.join(folder, 'kiosk.json');
    const kiosk = await startBuiltCli(kioskArgs(kioskFile, hub.url));
    await until(async () => (await statusOf(kiosk.url)).reachable === true, 'the hub reached');
    const own = (await (await create(kiosk.url, 'Own')).json()) as Pet;

    const lease = await post(kiosk.url, '/sync/leases', KIOSK_KEY);
    expect(lease.status).toBe(409);
    expect(await lease.json()).toMatchObject({ code: 'sync_conflict', message: expect.stringMatching(/kiosk/) });
    for (const id of [1, own.id, own.id + 1]) {
      const push = await post(kiosk.url, '/sync/push', KIOSK_KEY, { pets: [{ id, name: 'Intruder', categoryId: 1, status: 'sold' }] });
      expect(push.status).toBe(409);
      expect(((await push.json()) as { code: string }).code).toBe('sync_conflict');
    }
    const next = await create(kiosk.url, 'Next');
    expect(next.status).toBe(201);
    expect(((await next.json()) as Pet).id).toBe(own.id + 1);
    const held = await listOf(kiosk.url, KIOSK_KEY);
    expect(held.map(({ name }) => name).sort()).toEqual(['From the hub', 'Next', 'Own']);

    // The file is whole: the kiosk starts on it again, and every id is held once.
    expect((await stop(kiosk)).code).toBe(0);
    const { pets } = JSON.parse(fs.readFileSync(kioskFile, 'utf8')) as { pets: Pet[] };
    expect(new Set(pets.map(({ id }) => id)).size).toBe(3);
    const again = await startBuiltCli(kioskArgs(kioskFile, hub.url));
    expect((await create(again.url, 'After')).status).toBe(201);
    await stop(again);
    await stop(hub);
  });
});

describe('a kiosk and its hub URL', () => {
  it('Should start with a corrected hub URL while it never leased anything, take the same hub written otherwise, and refuse another once it leased', async () => {
    const folder = tempFolder();
    const hub = await startHub(path.join(folder, 'hub.json'));
    const kioskFile = path.join(folder, 'kiosk.json');
    // A mistyped port: never reached, nothing leased.
    const mistyped = await startBuiltCli(kioskArgs(kioskFile, `http://127.0.0.1:${await freePort()}/v1`));
    await until(async () => (await statusOf(mistyped.url)).problem !== 'not tried yet', 'a first round');
    expect((await stop(mistyped)).code).toBe(0);

    const corrected = await startBuiltCli(kioskArgs(kioskFile, hub.url));
    await until(async () => (await statusOf(corrected.url)).reachable === true, 'the corrected hub reached');
    expect((await create(corrected.url, 'Rex')).status).toBe(201);
    await stop(corrected);

    // The same hub, written with a trailing slash and the host in capitals.
    const port = new URL(hub.url).port;
    const same = await startBuiltCli(kioskArgs(kioskFile, `HTTP://127.0.0.1:${port}/v1/`));
    await until(async () => (await statusOf(same.url)).waiting === 0, 'Rex pushed');
    await stop(same);

    const other = runBuiltCli(kioskArgs(kioskFile, `http://127.0.0.1:${await freePort()}/v1`));
    expect((await other.exited).code).toBe(1);
    expect(other.stderr()).toMatch(/syncs with the hub http:\/\/127\.0\.0\.1:[0-9]+\/v1, not .* holds 1 animal from it.*animal-store copy/);
    await stop(hub);
  });

  it('Should refuse another hub to a kiosk that leased a block but holds no animal, pointing to a new data file', async () => {
    const folder = tempFolder();
    const hub = await startHub(path.join(folder, 'hub.json'));
    const kioskFile = path.join(folder, 'kiosk.json');
    const kiosk = await startBuiltCli(kioskArgs(kioskFile, hub.url));
    await until(async () => (await statusOf(kiosk.url)).idsLeft === 1000, 'a block leased');
    await stop(kiosk);
    const other = runBuiltCli(kioskArgs(kioskFile, `http://127.0.0.1:${await freePort()}/v1`));
    expect((await other.exited).code).toBe(1);
    expect(other.stderr()).toMatch(/holds a block of ids that hub leased to it, so it cannot change hubs.*new, empty data file/);
    await stop(hub);
  });
});

describe('sync beside test mode and seeds', () => {
  it.each([
    ['--test-mode', ['--test-mode'], {}, /--test-mode and --sync-with exclude each other/],
    ['--test-mode with ANIMAL_STORE_SYNC_WITH', ['--test-mode'], { sync: 'env' }, /--test-mode and ANIMAL_STORE_SYNC_WITH exclude/],
    ['--seed on a new data file', ['--seed', 'SEED', 'FILE'], {}, /--seed and --sync-with exclude each other.*Seed the hub instead/],
    ['--seed with --memory', ['--seed', 'SEED', '--memory'], {}, /--seed and --sync-with exclude each other/],
  ] as const)('Should refuse %s at start, before anything is written', async (_what, flags, { sync }: { sync?: string }, message) => {
    const folder = tempFolder();
    const seed = path.join(folder, 'seed.json');
    fs.writeFileSync(seed, JSON.stringify([{ name: 'Seeded', categoryId: 1 }]));
    const file = path.join(folder, 'data', 'kiosk.json');
    const args = flags.map((flag) => (flag === 'SEED' ? seed : flag === 'FILE' ? file : flag));
    const hub = 'http://127.0.0.1:9/v1';
    const cli = runBuiltCli(
      ['serve', ...args, '--port', '0', '--api-key', KIOSK_KEY, ...(sync ? [] : ['--sync-with', hub]), '--sync-key', HUB_KEY],
      { env: sync ? { ANIMAL_STORE_SYNC_WITH: hub } : {} },
    );
    expect((await cli.exited).code).toBe(2);
    expect(cli.stderr()).toMatch(message);
    expect(fs.readdirSync(folder)).toEqual(['seed.json']);
  });
});

describe('a kiosk whose key the hub refuses', () => {
  it('Should say so in its 503s, its status and its log (once), never showing the key', async () => {
    const folder = tempFolder();
    const hub = await startHub(path.join(folder, 'hub.json'));
    const wrongKey = 'a-key-the-hub-never-heard-of-0123';
    const kiosk = await startBuiltCli(kioskArgs(path.join(folder, 'kiosk.json'), hub.url, wrongKey));
    await until(async () => (await statusOf(kiosk.url)).problem !== 'not tried yet', 'a first round');
    const status = await statusOf(kiosk.url);
    expect(status).toMatchObject({ reachable: false, lastPush: null, lastPull: null });
    expect(status.problem).toMatch(/refuses this kiosk's sync key: it answered 401/);
    const refused = await create(kiosk.url, 'Rex');
    expect(refused.status).toBe(503);
    const body = (await refused.json()) as { message: string };
    expect(body.message).toMatch(/^The hub refuses this kiosk's sync key \(it answered 401\)/);
    // Many more rounds: still one line.
    await sleep(1000);
    const lines = kiosk
      .stderr()
      .split('\n')
      .filter((line) => /refuses this kiosk's sync key/.test(line));
    expect(lines).toHaveLength(1);
    expect(`${kiosk.stdout()}${kiosk.stderr()}${JSON.stringify(status)}${body.message}`).not.toContain(wrongKey);
    await stop(kiosk);
    await stop(hub);
  });
});

describe('a kiosk during an outage', () => {
  it('Should keep lastPush and lastPull at the last exchange the hub answered while it cannot reach it', async () => {
    const folder = tempFolder();
    const hubPort = await freePort();
    const hubFile = path.join(folder, 'hub.json');
    const hub = await startHub(hubFile, hubPort);
    const kiosk = await startBuiltCli(kioskArgs(path.join(folder, 'kiosk.json'), hub.url));
    await until(async () => (await statusOf(kiosk.url)).reachable === true, 'the hub reached');
    expect((await create(kiosk.url, 'Rex')).status).toBe(201);
    await until(async () => (await statusOf(kiosk.url)).waiting === 0 && (await statusOf(kiosk.url)).lastPush !== null, 'Rex pushed');
    const before = await statusOf(kiosk.url);
    await stop(hub);
    await until(async () => (await statusOf(kiosk.url)).reachable === false, 'the outage noticed');
    await sleep(800);
    expect((await create(kiosk.url, 'Offline')).status).toBe(201);
    await sleep(500);
    const during = await statusOf(kiosk.url);
    expect(during).toMatchObject({ reachable: false, waiting: 1, lastPush: before.lastPush, lastPull: before.lastPull });
    expect(during.problem).toMatch(/cannot reach the hub/);
    // Back: the waiting animal goes up, and both times move.
    const back = await startHub(hubFile, hubPort);
    // A round pushes, then pulls: the status is read once both have answered, not between them.
    await until(async () => {
      const status = await statusOf(kiosk.url);
      return status.waiting === 0 && status.lastPull !== before.lastPull;
    }, 'the offline create pushed and a pull answered');
    const after = await statusOf(kiosk.url);
    expect(Date.parse(after.lastPush as string)).toBeGreaterThan(Date.parse(before.lastPush as string));
    expect(Date.parse(after.lastPull as string)).toBeGreaterThan(Date.parse(before.lastPull as string));
    await stop(kiosk);
    await stop(back);
  });
});

describe('SIGHUP', () => {
  it('Should never stop the server: it logs, keeps serving, and SIGTERM still stops it cleanly', async () => {
    const folder = tempFolder();
    const server = await startBuiltCli(['serve', path.join(folder, 'animals.json'), '--port', '0', '--api-key', KIOSK_KEY, '--quiet']);
    server.child.kill('SIGHUP');
    await waitForOutput(server, /SIGHUP: no --api-key-file to read again/);
    server.child.kill('SIGHUP');
    await sleep(200);
    expect((await create(server.url, 'Rex')).status).toBe(201);
    expect((await listOf(server.url, KIOSK_KEY)).length).toBe(1);
    expect(await stop(server)).toEqual({ code: 0, signal: null });
  });
});
