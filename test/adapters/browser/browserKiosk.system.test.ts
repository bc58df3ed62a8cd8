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
    const storage = page.locator('#storage-state');
    await expect.poll(() => storage.getAttribute('data-quota'), { timeout: 10_000 }).toMatch(/^[1-9]\d*$/);
    expect(await storage.textContent()).toMatch(/^Storage: (persisted|not persisted).*used of/);
    await page.close();
  }, 90_000);
});
