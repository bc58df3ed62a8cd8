/**
 * @module The kiosk example as a kiosk of a hub: the page, in Debian's headless Chromium,
 * says plainly that the kiosk is offline and how many animals wait to sync, and that
 * everything is synced once the hub is back.
 */
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { startCli } from '../support/startCli.js';
import { startTcpProxy } from '../support/tcpProxy.js';
import { tempFolder } from '../support/tempFolder.js';
import { HUB_KEY } from '../sync/fleet.js';
import { killLeftoverExamples, startExample } from './runExample.js';

const READY = /kiosk on (http:\/\/\S+\/) using the API at (\S+)/;
const KIOSK_KEY = 'kiosk-test-key-0001';

afterAll(killLeftoverExamples);

describe('examples/kiosk syncing with a hub', () => {
  it('Should show "Offline, N animals waiting to sync" while its hub is out of reach, and "everything synced" after', async () => {
    const folder = tempFolder();
    const hub = await startCli(['serve', path.join(folder, 'hub.json'), '--port', '0', '--api-key', HUB_KEY, '--quiet']);
    const proxy = await startTcpProxy({ host: '127.0.0.1', port: Number(new URL(hub.url).port) });
    const kiosk = await startExample('examples/kiosk/server.ts', READY, {
      env: {
        KIOSK_PORT: '0',
        API_PORT: '0',
        KIOSK_API_KEY: KIOSK_KEY,
        KIOSK_DATA_FILE: path.join(folder, 'kiosk.json'),
        ANIMAL_STORE_SYNC_WITH: `http://127.0.0.1:${proxy.port}/v1`,
        ANIMAL_STORE_SYNC_KEY: HUB_KEY,
      },
    });
    const [, pageUrl = '', apiBase = ''] = kiosk.ready;
    const browser = await launchChromium('the kiosk syncing');
    try {
      const page = await browser.newPage({ viewport: { width: 390, height: 844 } });
      await page.goto(pageUrl);
      const state = page.locator('#sync-state');
      await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('Online, everything synced.');

      await proxy.cut();
      for (const name of ['Pip', 'Olive']) {
        const response = await fetch(`${apiBase}/pets`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KIOSK_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name, categoryId: 1 }),
        });
        expect(response.status).toBe(201);
      }
      await expect.poll(() => state.textContent(), { timeout: 15_000 }).toMatch(/^Offline, 2 animals waiting to sync\./);
      expect(await state.getAttribute('class')).toContain('offline');

      await proxy.restore();
      await expect.poll(() => state.textContent(), { timeout: 15_000 }).toBe('Online, everything synced.');
    } finally {
      await browser.close();
      await kiosk.stop();
      await proxy.close();
    }
  }, 60_000);
});
