/**
 * @module The browser's files, built with esbuild into dist/browser/ after `tsc`:
 * `animal-store-worker.js` (the test apps' worker, which `animal-store init-worker` copies)
 * and `kiosk/` (the kiosk web app `serve --browser-kiosk` serves: its page, made from
 * examples/kiosk's page by browserKioskPage, the worker, the package's client bundled for the
 * page, adapters/browser/kiosk/app's files, and examples/kiosk's own scripts and styles).
 * Workers are classic scripts (IIFE): every browser with service workers runs those.
 */
import { copyFile, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { browserKioskPage } from './browserKioskPage.js';

const root = fileURLToPath(new URL('..', import.meta.url));
// `tsx scripts/buildBrowserFiles.ts [FOLDER]`: into FOLDER (npm start's copy), dist/browser/ by default.
const out = process.argv[2] ? resolve(process.argv[2]) : join(root, 'dist', 'browser');
const kioskOut = join(out, 'kiosk');

/** Bundles one entry for the browser, minified (what the tablet downloads and the 60 KiB budget counts). */
const bundle = (entry: string, outfile: string, format: 'iife' | 'esm') =>
  build({
    entryPoints: [join(root, entry)],
    outfile,
    bundle: true,
    format,
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  });

await mkdir(kioskOut, { recursive: true });
await Promise.all([
  bundle('adapters/browser/testAppWorkerScript.ts', join(out, 'animal-store-worker.js'), 'iife'),
  bundle('adapters/browser/kiosk/kioskWorkerScript.ts', join(kioskOut, 'worker.js'), 'iife'),
  bundle('core/client.ts', join(kioskOut, 'animal-store-client.js'), 'esm'),
]);
const app = join(root, 'adapters', 'browser', 'kiosk', 'app');
for (const name of await readdir(app)) await copyFile(join(app, name), join(kioskOut, name));
const example = join(root, 'examples', 'kiosk');
for (const name of ['kiosk.js', 'kiosk.css', 'describeFailure.js']) await copyFile(join(example, name), join(kioskOut, name));
await writeFile(join(kioskOut, 'index.html'), browserKioskPage(await readFile(join(example, 'index.html'), 'utf8')));
