/**
 * @module Test apps in the browser, in Debian's Chromium: `animal-store init-worker DIR` writes
 * the worker script into a web root, a page calls `startWorker()` from animal-store/browser,
 * and the real service answers /v1 in the page (seeded, reset, stopped), while every other
 * request reaches the page's own server. Also the worker scripts' weight.
 */
import { readFile, stat, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../support/chromium.js';
import { killLeftoverProcesses, REPO_ROOT, runCli } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';
import { buildBrowserFiles } from './buildBrowserFiles.js';

const KEY = 'test-app-key-0123456789';
const SEED = [
  { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
  { id: 4, name: 'Juniper', categoryId: 3, status: 'sold' },
];

beforeAll(buildBrowserFiles, 120_000);
afterAll(killLeftoverProcesses);

/** A web root's files over HTTP, as a dev server serves `public/`; anything else is a 404 the test can tell from the worker's answers. */
const serveFolder = (folder: string): Promise<Server> =>
  new Promise((resolve) => {
    const server = createServer(async (request, response) => {
      const name = new URL(request.url ?? '/', 'http://app').pathname.slice(1) || 'index.html';
      const body = await readFile(path.join(folder, name)).catch(() => undefined);
      if (body === undefined) {
        response.writeHead(404, { 'content-type': 'text/plain' }).end('not found by the app server');
        return;
      }
      const type = name.endsWith('.html') ? 'text/html' : name.endsWith('.js') ? 'text/javascript' : 'text/plain';
      response.writeHead(200, { 'content-type': type }).end(body);
    });
    server.listen(0, '127.0.0.1', () => resolve(server));
  });

/** The page of a test app: starts the worker with the options in its address, then says it is ready. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>test app</title>
<script type="module">
  import { startWorker } from './animal-store-browser.js';
  const options = JSON.parse(decodeURIComponent(location.hash.slice(1)));
  window.worker = await startWorker(options);
  // The first request after startWorker resolves: it must reach the worker, not the app's server.
  window.firstAnswer = (await fetch('/v1/pets', { headers: { authorization: 'Bearer ${KEY}' } })).status;
  window.started = true;
</script>`;

const call = (page: Page, url: string, init: { method?: string; body?: string; headers?: Record<string, string> } = {}) =>
  page.evaluate(
    async ({ url, init, key }) => {
      const response = await fetch(url, {
        ...init,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...init.headers },
      });
      const text = await response.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {}
      return { status: response.status, body, location: response.headers.get('location') };
    },
    { url, init, key: KEY },
  );

describe('test apps: init-worker and startWorker', () => {
  const root = tempFolder({ until: 'file' });
  let server: Server;
  let origin: string;
  let browser: Browser;

  beforeAll(async () => {
    const cli = runCli(['init-worker', root]);
    expect(await cli.exited).toMatchObject({ code: 0 });
    expect(cli.stdout()).toContain(path.join(root, 'animal-store-worker.js'));
    const bundled = await build({
      entryPoints: [path.join(REPO_ROOT, 'adapters/browser.ts')],
      bundle: true,
      format: 'esm',
      platform: 'browser',
      write: false,
      logLevel: 'silent',
    });
    await writeFile(path.join(root, 'animal-store-browser.js'), bundled.outputFiles[0]!.text);
    await writeFile(path.join(root, 'index.html'), PAGE);
    await writeFile(path.join(root, 'hello.txt'), 'hello from the app server');
    server = await serveFolder(root);
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium('test apps with startWorker');
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    server?.close();
  });

  const open = async (page: Page, options: object) => {
    await page.goto(`${origin}/#${encodeURIComponent(JSON.stringify(options))}`);
    await page.waitForFunction(() => (window as { started?: boolean }).started === true, undefined, { timeout: 15_000 });
  };

  it('Should write the worker script into DIR, and refuse a DIR that is missing or not given, saying why', async () => {
    expect((await stat(path.join(root, 'animal-store-worker.js'))).size).toBeGreaterThan(1000);
    const missing = runCli(['init-worker', path.join(root, 'no-such-folder')]);
    expect(await missing.exited).toMatchObject({ code: 1 });
    expect(missing.stderr()).toMatch(/the folder .*no-such-folder does not exist: create it/);
    const none = runCli(['init-worker']);
    expect(await none.exited).toMatchObject({ code: 2 });
    expect(none.stderr()).toMatch(/init-worker needs DIR/);
  });

  it('Should weigh at most 60 KiB gzipped, each worker script with everything it imports', async () => {
    for (const file of ['animal-store-worker.js', 'kiosk/worker.js']) {
      const text = await readFile(path.join(REPO_ROOT, 'dist/browser', file));
      expect(gzipSync(text, { level: 9 }).length, file).toBeLessThanOrEqual(60 * 1024);
    }
  });

  it('Should answer /v1 with the seeded service from the first request on, reset to the seed, and pass everything else through', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await open(page, { keys: [KEY], seed: SEED });
    expect(await page.evaluate(() => (window as { firstAnswer?: number }).firstAnswer)).toBe(200);
    expect((await call(page, '/v1/pets')).body).toEqual(SEED);
    const created = await call(page, '/v1/pets', { method: 'POST', body: JSON.stringify({ name: 'Clover', categoryId: 4 }) });
    expect(created).toMatchObject({ status: 201, location: '/v1/pets/5', body: { id: 5, name: 'Clover' } });
    expect((await call(page, '/v1/pets', { headers: { authorization: 'Bearer wrong-key-0123456789' } })).status).toBe(401);
    expect((await call(page, '/hello.txt')).body).toBe('hello from the app server');
    await page.evaluate(() => (window as unknown as { worker: { reset(): Promise<void> } }).worker.reset());
    expect((await call(page, '/v1/pets')).body).toEqual(SEED);
    await page.evaluate(() => (window as unknown as { worker: { stop(): Promise<void> } }).worker.stop());
    expect(await call(page, '/v1/pets')).toMatchObject({ status: 404, body: 'not found by the app server' });
    await context.close();
  }, 60_000);

  it('Should control the page again after a hard reload, so no request slips past the worker', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await open(page, { keys: [KEY], seed: SEED });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Page.reload', { ignoreCache: true });
    await page.waitForFunction(() => (window as { started?: boolean }).started === true, undefined, { timeout: 15_000 });
    expect(await page.evaluate(() => (window as { firstAnswer?: number }).firstAnswer)).toBe(200);
    await context.close();
  }, 60_000);

  it("Should keep what was created across reloads with storage: 'indexeddb', and reset it to the seed", async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const options = { keys: [KEY], seed: SEED, storage: 'indexeddb', basePath: '/api' };
    await open(page, options);
    const created = await call(page, '/api/pets', { method: 'POST', body: JSON.stringify({ name: 'Kept', categoryId: 2 }) });
    expect(created).toMatchObject({ status: 201, location: '/api/pets/5' });
    await page.reload();
    await page.waitForFunction(() => (window as { started?: boolean }).started === true);
    expect(((await call(page, '/api/pets')).body as { name: string }[]).map(({ name }) => name)).toEqual(['Biscuit', 'Juniper', 'Kept']);
    await page.evaluate(() => (window as unknown as { worker: { reset(): Promise<void> } }).worker.reset());
    expect((await call(page, '/api/pets')).body).toEqual(SEED);
    await context.close();
  }, 60_000);

  it('Should open one IndexedDB catalogue at a time: a second opener waits for the first to close, and gives up with storage_unavailable', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await open(page, { keys: [KEY], seed: SEED });
    // As text: vitest would rewrite a dynamic import inside a function passed to the page.
    const outcome = await page.evaluate(`(async () => {
      const { openIndexedDbStorage } = await import('./animal-store-browser.js');
      const first = await openIndexedDbStorage({ name: 'one-writer' });
      await first.create({ name: 'First', categoryId: 1, status: 'available' });
      const refused = await openIndexedDbStorage({ name: 'one-writer' }).then(() => 'opened while the first was open', (error) => error.code);
      // The next opener waits for the first to close, then sees what it wrote.
      const waiting = openIndexedDbStorage({ name: 'one-writer' });
      await new Promise((resolve) => setTimeout(resolve, 200));
      await first.close();
      const second = await waiting;
      const names = (await second.list({ after: 0, limit: 10 })).map(({ name }) => name);
      await second.close();
      return { refused, names };
    })()`);
    expect(outcome).toEqual({ refused: 'storage_unavailable', names: ['First'] });
    await context.close();
  }, 60_000);
});
