/**
 * @module Kiosk example: serves a small web page (index.html, kiosk.css, kiosk.js,
 * describeFailure.js, and the package's typed client bundled at start as
 * animal-store-client.js) on one origin and the catalogue API on another port, with CORS
 * allowing exactly the page's origin, as a shop's kiosk screen would have it. The page lists
 * animals with a status filter and paging, refreshes the shown page now and then, and adds
 * animals through a form. The API keeps a seeded catalogue in memory, so every start shows
 * the same animals.
 *
 * The page gets the API's address, a kiosk key and how often to refresh from `/config.json`.
 * Anything a browser is given can be read by whoever sits at it, so give the kiosk its own
 * key (accepted beside the others and rotated on its own) and never an operator's key.
 *
 * Run (from this repository; see examples/README.md), then open the printed address:
 * `node --conditions=animal-store-source --import tsx examples/kiosk/server.ts`.
 * KIOSK_PORT (8080) and API_PORT (8081) choose the ports; KIOSK_API_KEY the kiosk's key;
 * KIOSK_REFRESH_SECONDS (30) how often the page revalidates the list it shows. A port that
 * is taken ends the program with one line saying which, not a stack trace.
 *
 * With ANIMAL_STORE_SYNC_WITH (a hub's base URL) and ANIMAL_STORE_SYNC_KEY, the API is a
 * kiosk of that hub instead: it keeps its animals in KIOSK_DATA_FILE (./data/kiosk.json),
 * starts empty, syncs in the background, and the page says "Offline, N waiting to sync"
 * whenever the hub cannot be reached.
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Pet } from 'animal-store';
import { createMemoryStorage, openJsonFileStorage, type Replicator, serve, startReplicator } from 'animal-store/node';
import { bundleBrowserClient } from './bundleBrowserClient.js';

const host = '127.0.0.1';
const kioskKey = process.env.KIOSK_API_KEY ?? 'kiosk-demo-key-0001';

/** The animals the kiosk starts with: enough for more than one page of each filter. */
const seed: Pet[] = [
  { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
  { id: 2, name: 'Nimbus', categoryId: 2, status: 'pending' },
  { id: 3, name: 'Pepper', categoryId: 1, status: 'available' },
  { id: 4, name: 'Juniper', categoryId: 3, status: 'sold' },
  { id: 5, name: 'Mochi', categoryId: 2, status: 'available' },
  { id: 6, name: 'Clover', categoryId: 4, status: 'available' },
  { id: 7, name: 'Saffron', categoryId: 3, status: 'pending' },
  { id: 8, name: 'Tofu', categoryId: 1, status: 'available' },
  { id: 9, name: 'Waffles', categoryId: 2, status: 'available' },
];

/** The page's files, by the path they are served at. */
const pageFiles: Record<string, { file: string; type: string }> = {
  '/': { file: 'index.html', type: 'text/html; charset=utf-8' },
  '/kiosk.js': { file: 'kiosk.js', type: 'text/javascript; charset=utf-8' },
  '/describeFailure.js': { file: 'describeFailure.js', type: 'text/javascript; charset=utf-8' },
  '/kiosk.css': { file: 'kiosk.css', type: 'text/css; charset=utf-8' },
};

/** The environment variables that choose the two ports. */
type PortVariable = 'KIOSK_PORT' | 'API_PORT';

/** The path the bundled client is served at; kiosk.js and describeFailure.js import it from there. */
const CLIENT_PATH = '/animal-store-client.js';

/** Says, in one line on stderr, why the kiosk cannot start and how to fix it, and exits with 1. */
const refuseToStart = (problem: string): never => {
  console.error(`The kiosk cannot start: ${problem}`);
  process.exit(1);
};

/** The port an environment variable asks for, or `fallback` when it is not set. */
const portFrom = (variable: PortVariable, fallback: number): number => {
  const text = process.env[variable] ?? '';
  if (text === '') return fallback;
  if (/^\d{1,5}$/.test(text) && Number(text) <= 65_535) return Number(text);
  return refuseToStart(`${variable} must be a port number from 0 to 65535, not ${JSON.stringify(text.slice(0, 20))}.`);
};

/**
 * Runs `listen`; when the port is taken (or not allowed), exits with one line naming the port
 * and the variables that choose another, instead of Node's stack trace.
 */
const listenOrRefuse = async <T>(variable: PortVariable, port: number, listen: () => Promise<T>): Promise<T> => {
  try {
    return await listen();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    const problem = code === 'EADDRINUSE' ? 'is already in use' : code === 'EACCES' ? 'may not be used by this user' : undefined;
    if (!problem) throw error;
    return refuseToStart(
      `port ${port} (${variable}) ${problem} on ${host}. Choose free ports with the environment variables KIOSK_PORT and API_PORT, e.g. KIOSK_PORT=9080 API_PORT=9081.`,
    );
  }
};

/** Seconds between two refreshes of the shown list, from KIOSK_REFRESH_SECONDS; 30 when it is not set. */
const refreshSecondsFrom = (fallback: number): number => {
  const text = process.env.KIOSK_REFRESH_SECONDS ?? '';
  if (text === '') return fallback;
  if (/^\d{1,5}$/.test(text) && Number(text) >= 1) return Number(text);
  return refuseToStart(`KIOSK_REFRESH_SECONDS must be a whole number of seconds from 1, not ${JSON.stringify(text.slice(0, 20))}.`);
};

const pagePort = portFrom('KIOSK_PORT', 8080);
const apiPort = portFrom('API_PORT', 8081);
const refreshSeconds = refreshSecondsFrom(30);

// Bundled once, into memory: the page's own files stay as written, with no build step.
const clientModule = await bundleBrowserClient().catch((error: unknown) => {
  const reason = (error as { errors?: { text: string }[] }).errors?.[0]?.text ?? String(error);
  return refuseToStart(`animal-store/client could not be bundled for the browser (${reason}).`);
});

let pageConfig = '';
const page = createServer(async (request, response) => {
  const path = new URL(request.url ?? '/', 'http://kiosk').pathname;
  if (path === '/config.json') {
    response.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    return response.end(pageConfig);
  }
  if (path === CLIENT_PATH && request.method === 'GET') {
    response.writeHead(200, { 'content-type': 'text/javascript; charset=utf-8' });
    return response.end(clientModule);
  }
  const served = pageFiles[path];
  if (!served || request.method !== 'GET') {
    response.writeHead(404, { 'content-type': 'text/plain' });
    return response.end('Not found');
  }
  response.writeHead(200, { 'content-type': served.type });
  response.end(await readFile(new URL(served.file, import.meta.url)));
});
await listenOrRefuse(
  'KIOSK_PORT',
  pagePort,
  () =>
    new Promise<void>((resolve, reject) => {
      page.once('error', reject);
      page.listen(pagePort, host, () => {
        page.off('error', reject);
        resolve();
      });
    }),
);
const pageOrigin = `http://${host}:${(page.address() as AddressInfo).port}`;

// A kiosk of a hub starts from its own (empty, at first) data file; a lone kiosk from the seed, in memory.
const hub = process.env.ANIMAL_STORE_SYNC_WITH;
const storage = hub ? await openJsonFileStorage({ file: process.env.KIOSK_DATA_FILE ?? './data/kiosk.json' }) : createMemoryStorage(seed);
let replicator: Replicator | undefined;
if (hub) {
  const key =
    process.env.ANIMAL_STORE_SYNC_KEY ?? refuseToStart('ANIMAL_STORE_SYNC_WITH needs ANIMAL_STORE_SYNC_KEY, a key the hub accepts.');
  replicator = await startReplicator({ storage, hub, key, intervalSeconds: 2 });
}

// The API allows the page's origin, and only it: a browser on any other site gets no answer it can read.
const api = await listenOrRefuse('API_PORT', apiPort, () =>
  serve({
    storage,
    keys: [kioskKey],
    host,
    port: apiPort,
    cors: { origins: [pageOrigin] },
    ...(replicator ? { sync: { status: replicator.status } } : {}),
  }),
);
pageConfig = JSON.stringify({ apiBase: api.url, apiKey: kioskKey, pageSize: 4, refreshSeconds, ...(replicator ? { sync: true } : {}) });
console.log(`kiosk on ${pageOrigin}/ using the API at ${api.url}`);

/** Closes both servers, on Ctrl-C or a process manager's SIGTERM. */
const stop = async () => {
  page.close();
  page.closeIdleConnections();
  await replicator?.stop();
  await api.close();
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
