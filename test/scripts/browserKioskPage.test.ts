/** @module The browser kiosk's page is made from examples/kiosk's page at build time, or the build fails saying why. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { browserKioskPage } from '../../scripts/browserKioskPage.js';

const ROOT = path.join(import.meta.dirname, '../..');
const EXAMPLE_PAGE = readFileSync(path.join(ROOT, 'examples/kiosk/index.html'), 'utf8');
const BOOT = readFileSync(path.join(ROOT, 'adapters/browser/kiosk/app/boot.js'), 'utf8');

/** Every element id a page has, in its order. */
const idsOf = (page: string) => [...page.matchAll(/\sid="([^"]+)"/g)].map(([, id]) => id!);

/** The scripts a page loads itself. */
const scriptsOf = (page: string) => [...page.matchAll(/<script[^>]*\ssrc="([^"]+)"/g)].map(([, src]) => src!);

describe("the browser kiosk's page", () => {
  it("Should keep every element of the example's page and add the app's status lines", () => {
    const page = browserKioskPage(EXAMPLE_PAGE);
    const added = idsOf(page).filter((id) => !idsOf(EXAMPLE_PAGE).includes(id));
    expect(added).toEqual(['setup-state', 'storage-state']);
    expect(idsOf(page).filter((id) => !added.includes(id))).toEqual(idsOf(EXAMPLE_PAGE));
  });

  it('Should load boot.js instead of kiosk.js, so the worker controls the page before its first request', () => {
    const page = browserKioskPage(EXAMPLE_PAGE);
    expect(scriptsOf(EXAMPLE_PAGE)).toContain('kiosk.js');
    expect(scriptsOf(page)).toEqual(['boot.js']);
    expect(BOOT).toContain("import('./kiosk.js')");
  });

  it('Should name the manifest, its icon and the hub boot.js registers the worker for', () => {
    const page = browserKioskPage(EXAMPLE_PAGE);
    expect(page).toContain('<link rel="manifest" href="manifest.webmanifest" />');
    expect(page).toContain('<link rel="icon" href="icon.svg" />');
    // createBrowserKioskRoute replaces this placeholder with the hub's base path.
    expect(page).toContain('<meta name="animal-store-hub" content="{{HUB_BASE}}" />');
    expect(BOOT).toContain('meta[name="animal-store-hub"]');
  });

  it('Should have every element boot.js looks for', () => {
    const wanted = [...BOOT.matchAll(/byId\('([^']+)'\)/g)].map(([, id]) => id!);
    expect(wanted).toContain('setup-state');
    const ids = idsOf(browserKioskPage(EXAMPLE_PAGE));
    expect(wanted.filter((id) => !ids.includes(id))).toEqual([]);
  });

  it("Should fail, naming the line, when the example's page lost a line it changes", () => {
    const without = EXAMPLE_PAGE.replace('<script type="module" src="kiosk.js"></script>', '<script type="module" src="main.js"></script>');
    expect(() => browserKioskPage(without)).toThrow(
      'examples/kiosk/index.html must have the line <script type="module" src="kiosk.js"></script> exactly once (it has it 0 times)',
    );
  });

  it('Should fail when a line it changes stands twice, rather than guess which one', () => {
    const twice = EXAMPLE_PAGE.replace(
      '<p>Catalogue: <code id="api-base"></code></p>',
      '$&\n<p>Catalogue: <code id="api-base"></code></p>',
    );
    expect(() => browserKioskPage(twice)).toThrow('(it has it 2 times)');
  });
});
