/**
 * @module `npm run bench -- --only browser`: the service in a service worker over IndexedDB,
 * in Debian's Chromium: a page of 20 from 10,000 animals and a durable create, each asked by
 * the page and answered by the worker (p50, p99), beside baselines measured in the same run:
 * the same page's bytes as a static file from the page's server (what the worker replaces),
 * and one strict IndexedDB transaction made by the page itself (the floor of a durable create).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { buildBrowserFiles } from '../adapters/browser/buildBrowserFiles.js';
import { launchChromium } from '../support/chromium.js';
import { REPO_ROOT } from '../support/nodeProcess.js';

const KEY = 'bench-browser-key-0123456789';

/** The page: seeds IndexedDB, starts the worker over it, and exposes the measurements. */
const PAGE = `<!doctype html><meta charset="utf-8"><title>bench</title>
<script type="module">
import { openIndexedDbStorage, startWorker } from './animal-store-browser.js';
const percentile = (times, share) => times.sort((a, b) => a - b)[Math.min(times.length - 1, Math.floor(times.length * share))];
const summary = (times) => ({ p50: percentile(times, 0.5), p99: percentile(times, 0.99), count: times.length });
const headers = { authorization: 'Bearer ${KEY}', 'content-type': 'application/json' };
window.bench = async ({ animals, pages, creates }) => {
  const statuses = ['available', 'pending', 'sold'];
  const seed = Array.from({ length: animals }, (_, index) => ({ id: index + 1, name: 'Animal ' + (index + 1), categoryId: 1 + (index % 7), status: statuses[index % 3] }));
  const storage = await openIndexedDbStorage({ name: 'animal-store', seed });
  await storage.close();
  await startWorker({ keys: ['${KEY}'], storage: 'indexeddb' });
  const page = [], staticPage = [], create = [], strictPut = [];
  // Pages of 20 all through the catalogue, following the Link headers.
  let next = '/v1/pets?limit=20';
  for (let index = 0; index < pages; index++) {
    const started = performance.now();
    const response = await fetch(next, { headers });
    await response.text();
    page.push(performance.now() - started);
    next = /<([^>]+)>;\\s*rel="next"/.exec(response.headers.get('link') ?? '')?.[1] ?? '/v1/pets?limit=20';
  }
  for (let index = 0; index < pages; index++) {
    const started = performance.now();
    await (await fetch('/page20.json')).text();
    staticPage.push(performance.now() - started);
  }
  for (let index = 0; index < creates; index++) {
    const started = performance.now();
    const response = await fetch('/v1/pets', { method: 'POST', headers, body: JSON.stringify({ name: 'Bench ' + index, categoryId: 1 }) });
    if (response.status !== 201) throw new Error('create answered ' + response.status);
    create.push(performance.now() - started);
  }
  const db = await new Promise((resolve, reject) => {
    const request = indexedDB.open('bench-floor', 1);
    request.onupgradeneeded = () => request.result.createObjectStore('rows', { autoIncrement: true });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error);
  });
  for (let index = 0; index < creates; index++) {
    const started = performance.now();
    await new Promise((resolve, reject) => {
      const transaction = db.transaction('rows', 'readwrite', { durability: 'strict' });
      transaction.objectStore('rows').add({ name: 'Bench ' + index, categoryId: 1, status: 'available' });
      transaction.oncomplete = resolve;
      transaction.onabort = () => reject(transaction.error);
    });
    strictPut.push(performance.now() - started);
  }
  return { page: summary(page), staticPage: summary(staticPage), create: summary(create), strictPut: summary(strictPut) };
};
window.ready = true;
</script>`;

type Summary = { p50: number; p99: number; count: number };

/** Runs the measurements once and logs a small table; resolves with the figures. */
export const measureBrowserWorker = async (folder: string, log: (line: string) => void, animals = 10_000) => {
  await mkdir(folder, { recursive: true });
  await buildBrowserFiles();
  const bundled = await build({
    entryPoints: [join(REPO_ROOT, 'adapters/browser.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  await writeFile(join(folder, 'animal-store-browser.js'), bundled.outputFiles[0]!.text);
  await writeFile(join(folder, 'animal-store-worker.js'), await readFile(join(REPO_ROOT, 'dist/browser/animal-store-worker.js')));
  await writeFile(join(folder, 'index.html'), PAGE);
  const twenty = Array.from({ length: 20 }, (_, index) => ({
    id: index + 1,
    name: `Animal ${index + 1}`,
    categoryId: 1,
    status: 'available',
  }));
  await writeFile(join(folder, 'page20.json'), JSON.stringify(twenty));
  const server = createServer(async (request, response) => {
    const name = new URL(request.url ?? '/', 'http://bench').pathname.slice(1) || 'index.html';
    const body = await readFile(join(folder, name)).catch(() => undefined);
    if (body === undefined) return response.writeHead(404).end();
    const type = name.endsWith('.html') ? 'text/html' : name.endsWith('.js') ? 'text/javascript' : 'application/json';
    response.writeHead(200, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const browser = await launchChromium('the browser bench');
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    await page.waitForFunction(() => (window as { ready?: boolean }).ready === true);
    const results = await page.evaluate(
      (options) => (window as unknown as { bench(o: typeof options): Promise<Record<string, Summary>> }).bench(options),
      { animals, pages: 500, creates: 200 },
    );
    const ms = (value: number) => `${value.toFixed(2)} ms`;
    log(`Chromium, a service worker over IndexedDB holding ${animals.toLocaleString('en')} animals:`);
    log('| measured | p50 | p99 | baseline | baseline p50 | p50 ratio |');
    log('| --- | --- | --- | --- | --- | --- |');
    const row = (what: string, ours: Summary, base: string, baseline: Summary) =>
      log(
        `| ${what} (${ours.count}) | ${ms(ours.p50)} | ${ms(ours.p99)} | ${base} | ${ms(baseline.p50)} | ${(ours.p50 / baseline.p50).toFixed(1)}× |`,
      );
    row('a page of 20 through the worker', results.page!, 'the same bytes as a static file', results.staticPage!);
    row('a durable create through the worker', results.create!, 'one strict IndexedDB transaction in the page', results.strictPut!);
    return results;
  } finally {
    await browser.close();
    server.close();
  }
};
