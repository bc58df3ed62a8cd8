/**
 * @module `serve --browser-kiosk`: the kiosk web app's files under /kiosk/ (the page, its
 * service worker, the web app manifest), read once from the built dist/browser/kiosk/. They
 * hold no secret and need no key; the page's API (/kiosk/v1) is answered by the worker in
 * the browser, never here.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { KIOSK_APP_FILES, KIOSK_PATH } from '../browser/kiosk/kioskFiles.js';
import { findBrowserFiles } from './findBrowserFiles.js';

/** Answers GET and HEAD for the kiosk's files, `undefined` for anything else (the service answers it). */
export type BrowserKioskRoute = (request: Request) => Promise<Response | undefined>;

/**
 * Reads the kiosk's files and makes the route serving them. `hubBase` (the server's base
 * path) is written into the page, so its worker syncs with `{origin}{hubBase}`.
 */
export const createBrowserKioskRoute = async (hubBase: string): Promise<BrowserKioskRoute> => {
  const folder = join(findBrowserFiles(), 'kiosk');
  // Every file is text (scripts, styles, the page, an SVG icon).
  const files = new Map<string, { body: string; type: string }>();
  for (const [name, type] of Object.entries(KIOSK_APP_FILES)) {
    const text = await readFile(join(folder, name), 'utf8');
    files.set(`${KIOSK_PATH}${name}`, { body: name === 'index.html' ? text.replace('{{HUB_BASE}}', hubBase) : text, type });
  }
  files.set(KIOSK_PATH, files.get(`${KIOSK_PATH}index.html`)!);
  return async (request) => {
    if (request.method !== 'GET' && request.method !== 'HEAD') return undefined;
    const path = new URL(request.url).pathname;
    if (path === KIOSK_PATH.slice(0, -1)) return new Response(null, { status: 308, headers: { location: KIOSK_PATH } });
    const file = files.get(path);
    if (file === undefined) return undefined;
    // Revalidated on every load, so a new version reaches tablets; the worker keeps its own copy for offline loads.
    const headers = { 'content-type': file.type, 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' };
    return new Response(request.method === 'HEAD' ? null : file.body, { headers });
  };
};
