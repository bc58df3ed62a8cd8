/**
 * @module The kiosk in the browser, in Debian's Chromium on a persistent profile: a hub with
 * --browser-kiosk serves the app; the tablet is provisioned once by /kiosk/#key=KEY; the
 * page's API is answered by the service worker from IndexedDB and synced with the hub; the
 * page keeps working with the hub stopped (reloads, a browser restart, two tabs, a stopped
 * worker), and once the hub is back every acknowledged create is there exactly once.
 */
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Pet } from '../../../core/schemas/Pet.js';
import { launchChromiumProfile } from '../../support/chromium.js';
import { killLeftoverProcesses, type NodeProcess, runCli, waitForListening } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';
import { freePort } from '../../sync/fleet.js';
import { buildBrowserFiles } from './buildBrowserFiles.js';

const HUB_KEY = 'browser-kiosk-hub-key-0123456789';

beforeAll(buildBrowserFiles, 120_000);
afterAll(killLeftoverProcesses);

/** Every animal at the hub, through its Link headers. */
const hubAnimals = async (origin: string): Promise<Pet[]> => {
  const all: Pet[] = [];
  for (let next: string | undefined = `${origin}/v1/pets?limit=100`; next !== undefined; ) {
    const response: Response = await fetch(next, { headers: { authorization: `Bearer ${HUB_KEY}` } });
    all.push(...((await response.json()) as Pet[]));
    const link = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
    next = link === undefined ? undefined : new URL(link, origin).href;
  }
  return all;
};

/** Calls the page's API from inside the page, as kiosk.js does: through the worker. */
const callInPage = (page: Page, url: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) =>
  page.evaluate(
    async ({ url, init }) => {
      const response = await fetch(url, init);
      const text = await response.text();
      return { status: response.status, headers: Object.fromEntries(response.headers), body: text === '' ? undefined : JSON.parse(text) };
    },
    { url, init },
  );

const createInPage = (page: Page, name: string, idempotencyKey?: string) =>
  callInPage(page, '/kiosk/v1/pets', {
    method: 'POST',
    headers: {
      authorization: `Bearer ${HUB_KEY}`,
      'content-type': 'application/json',
      ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
    },
    body: JSON.stringify({ name, categoryId: 2 }),
  });

describe('the kiosk in the browser (serve --browser-kiosk)', () => {
  const folder = tempFolder({ until: 'file' });
  const profile = path.join(folder, 'profile');
  let port: number;
  let origin: string;
  let hub: NodeProcess | undefined;
  let context: BrowserContext | undefined;

  const startHub = async () => {
    hub = runCli(['serve', path.join(folder, 'hub.json'), '--port', String(port), '--api-key', HUB_KEY, '--browser-kiosk', '--quiet']);
    await waitForListening(hub);
  };
  const stopHub = async () => {
    hub?.child.kill('SIGKILL');
    await hub?.exited;
    hub = undefined;
  };
  const openBrowser = async () => {
    context = await launchChromiumProfile('the kiosk in the browser', profile);
    return context;
  };
  const kioskPage = async (address = `${origin}/kiosk/`) => {
    const page = await context!.newPage();
    await page.goto(address);
    await expect.poll(() => page.locator('#pets tr').count(), { timeout: 15_000 }).toBeGreaterThan(0);
    return page;
  };
  const syncState = (page: Page) => page.locator('#sync-state').textContent();

  beforeAll(async () => {
    port = await freePort();
    origin = `http://127.0.0.1:${port}`;
    await startHub();
  });
  afterAll(async () => {
    await context?.close();
    await stopHub();
  });

  it('Should serve the app with no key and refuse nothing to a stranger but the API', async () => {
    for (const file of ['', 'worker.js', 'manifest.webmanifest', 'boot.js', 'kiosk.js', 'animal-store-client.js']) {
      const response = await fetch(`${origin}/kiosk/${file}`);
      expect(response.status, file).toBe(200);
    }
    const manifest = (await (await fetch(`${origin}/kiosk/manifest.webmanifest`)).json()) as { scope: string; start_url: string };
    expect(manifest).toMatchObject({ scope: '/kiosk/', start_url: '/kiosk/' });
    expect((await fetch(`${origin}/v1/pets`)).status).toBe(401);
  });

  it('Should take the key from the address once, hide it, and show the catalogue synced with the hub', async () => {
    await fetch(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HUB_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'FromHub', categoryId: 1 }),
    });
    await openBrowser();
    const page = await kioskPage(`${origin}/kiosk/#key=${HUB_KEY}`);
    expect(new URL(page.url()).hash).toBe('');
    await expect.poll(() => page.locator('#pets').textContent(), { timeout: 20_000 }).toContain('FromHub');
    await expect.poll(() => syncState(page), { timeout: 20_000 }).toBe('Online, everything synced.');
    await page.fill('input[name="name"]', 'Pip');
    await page.fill('input[name="categoryId"]', '3');
    await page.click('#add-button');
    await expect.poll(() => page.locator('#add-message').textContent(), { timeout: 10_000 }).toMatch(/^Added Pip as #\d+\.$/);
    await expect.poll(async () => (await hubAnimals(origin)).map(({ name }) => name), { timeout: 20_000 }).toContain('Pip');
    // And the hub's new animals reach the open page (a live pull, then the page's refresh).
    await fetch(`${origin}/v1/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${HUB_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'HubLater', categoryId: 1 }),
    });
    await expect.poll(() => page.locator('#pets').textContent(), { timeout: 20_000 }).toContain('HubLater');
    const storage = page.locator('#storage-state');
    await expect.poll(() => storage.getAttribute('data-quota'), { timeout: 10_000 }).toMatch(/^[1-9]\d*$/);
    expect(await storage.textContent()).toMatch(/^Storage: (persisted|not persisted).*used of/);
    await page.close();
  }, 90_000);

  const bearer = { authorization: `Bearer ${HUB_KEY}` };
  /** Every create the worker acknowledged (201), by name: the hub must hold each exactly once in the end. */
  const acknowledged: string[] = ['Pip'];

  it('Should answer /kiosk/v1 in the worker with the same interface: Error bodies, Location, ETags, Link pages, sync status', async () => {
    const page = await kioskPage();
    const refused = await callInPage(page, '/kiosk/v1/pets');
    expect(refused).toMatchObject({ status: 401, body: { code: 'unauthorized', status: 401 } });
    const invalid = await callInPage(page, '/kiosk/v1/pets', {
      method: 'POST',
      headers: { ...bearer, 'content-type': 'application/json' },
      body: JSON.stringify({ name: '', categoryId: 'x' }),
    });
    expect(invalid).toMatchObject({ status: 400, body: { code: 'validation_failed' } });
    const created = await createInPage(page, 'Bramble', 'key-bramble-1');
    expect(created.status).toBe(201);
    acknowledged.push('Bramble');
    expect(created.headers.location).toBe(`/kiosk/v1/pets/${created.body.id}`);
    const replayed = await createInPage(page, 'Bramble', 'key-bramble-1');
    expect(replayed.body).toEqual(created.body);
    const first = await callInPage(page, '/kiosk/v1/pets?limit=1', { headers: bearer });
    expect(first.headers.link).toMatch(/^<\/kiosk\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"$/);
    const again = await callInPage(page, '/kiosk/v1/pets?limit=1', { headers: { ...bearer, 'if-none-match': first.headers.etag! } });
    expect(again.status).toBe(304);
    const status = await callInPage(page, '/kiosk/v1/sync/status', { headers: bearer });
    expect(Object.keys(status.body).sort()).toEqual(['hub', 'idsLeft', 'lastPull', 'lastPush', 'problem', 'reachable', 'waiting']);
    expect(status.body.hub).toBe(`${origin}/v1`);
    // Nothing of this reached the hub as /kiosk/v1: the worker answered it all.
    await page.close();
  }, 60_000);

  it('Should load, list and create with the hub stopped, also after a reload, and say how many wait to sync', async () => {
    // Bramble, created in the worker above, reaches the hub at the worker's next sync: on a
    // busy machine that may be a while, and the count below is of the creates made offline.
    const online = await kioskPage();
    await expect
      .poll(async () => (await callInPage(online, '/kiosk/v1/sync/status', { headers: bearer })).body.waiting, { timeout: 20_000 })
      .toBe(0);
    await online.close();
    await stopHub();
    const page = await kioskPage();
    await page.reload();
    await expect.poll(() => page.locator('#pets').textContent(), { timeout: 15_000 }).toContain('Pip');
    for (const name of ['Olive', 'Quince']) {
      await page.fill('input[name="name"]', name);
      await page.fill('input[name="categoryId"]', '4');
      await page.click('#add-button');
      await expect
        .poll(() => page.locator('#add-message').textContent(), { timeout: 10_000 })
        .toMatch(new RegExp(`^Added ${name} as #\\d+\\.$`));
      acknowledged.push(name);
    }
    await expect.poll(() => syncState(page), { timeout: 20_000 }).toMatch(/^Offline, 2 animals waiting to sync\./);
    await page.close();
  }, 60_000);

  it('Should open offline after a browser restart on the same profile, with everything it held', async () => {
    await context!.close();
    await openBrowser();
    const page = await kioskPage();
    await expect.poll(() => page.locator('#pets').textContent(), { timeout: 15_000 }).toContain('Quince');
    await expect.poll(() => syncState(page), { timeout: 20_000 }).toMatch(/^Offline, 2 animals waiting to sync\./);
    await page.close();
  }, 60_000);

  it('Should share one worker between two tabs, whose creates never collide', async () => {
    const [one, two] = [await kioskPage(), await kioskPage()];
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, index) => createInPage(index % 2 === 0 ? one : two, `Tab ${index}`, `key-tab-${index}`)),
    );
    expect(answers.map(({ status }) => status)).toEqual(Array(10).fill(201));
    const ids = answers.map(({ body }) => body.id as number);
    expect(new Set(ids).size).toBe(10);
    acknowledged.push(...answers.map(({ body }) => body.name as string));
    await Promise.all([one.close(), two.close()]);
  }, 60_000);

  it('Should lose nothing acknowledged when the browser stops the worker in the middle of creates', async () => {
    const page = await kioskPage();
    const cdp = await context!.newCDPSession(page);
    await cdp.send('ServiceWorker.enable');
    // The page creates one animal after another, each retried with its own Idempotency-Key until
    // acknowledged (as the kiosk's client does), while the browser stops the worker three times.
    const creating = page.evaluate(async (authorization) => {
      const acknowledged: string[] = [];
      const started = performance.now();
      for (let index = 0; performance.now() - started < 1_500; index++) {
        const name = `Stopped ${index}`;
        for (;;) {
          const answer = await fetch('/kiosk/v1/pets', {
            method: 'POST',
            headers: { authorization, 'content-type': 'application/json', 'idempotency-key': `key-stopped-${index}` },
            body: JSON.stringify({ name, categoryId: 5 }),
          }).catch(() => undefined);
          if (answer?.status === 201) break;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        acknowledged.push(name);
      }
      return acknowledged;
    }, bearer.authorization);
    const states: string[] = [];
    cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => states.push(...versions.map((version) => version.runningStatus)));
    for (let stop = 0; stop < 3; stop++) {
      await new Promise((resolve) => setTimeout(resolve, 150));
      await cdp.send('ServiceWorker.stopAllWorkers');
    }
    const made = await creating;
    // The worker really was stopped, and started again to answer, three times in the middle of the creates.
    expect(states.filter((state) => state === 'stopped')).toHaveLength(3);
    expect(made.length).toBeGreaterThan(3);
    acknowledged.push(...made);
    const names = await page.evaluate(async (authorization) => {
      const all: string[] = [];
      for (let next: string | undefined = '/kiosk/v1/pets?limit=100'; next !== undefined; ) {
        const response: Response = await fetch(next, { headers: { authorization } });
        all.push(...((await response.json()) as { name: string }[]).map(({ name }) => name));
        next = /<([^>]+)>;\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1];
      }
      return all;
    }, bearer.authorization);
    for (const name of acknowledged)
      expect(
        names.filter((held) => held === name),
        name,
      ).toHaveLength(1);
    await page.close();
  }, 60_000);

  it('Should push every acknowledged create to the hub exactly once when the hub is back', async () => {
    await startHub();
    const page = await kioskPage();
    await expect.poll(() => syncState(page), { timeout: 30_000 }).toBe('Online, everything synced.');
    const names = (await hubAnimals(origin)).map(({ name }) => name);
    for (const name of acknowledged)
      expect(
        names.filter((held) => held === name),
        name,
      ).toHaveLength(1);
    // Besides them, the hub holds only its own two.
    expect(names.length).toBe(acknowledged.length + 2);
    await page.close();
  }, 60_000);
});
