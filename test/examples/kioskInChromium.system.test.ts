/**
 * @module The kiosk example in a real headless Chromium: the page on one origin, the API on
 * another, so CORS is exercised as a browser enforces it. Clicks through the status filter,
 * paging and the form, and saves the screenshot the README shows to docs/images/kiosk.png.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`.ci/run` installs it). Without it, only
 * this test is skipped, and its name says why.
 */
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { killLeftoverExamples, type RunningExample, startExample } from './runExample.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const SCREENSHOT = fileURLToPath(new URL('../../docs/images/kiosk.png', import.meta.url));

let kiosk: RunningExample | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await kiosk?.stop();
  killLeftoverExamples();
});

/** The names in the table once the page has finished loading the list. */
const shownNames = async (page: Page): Promise<string[]> => {
  await page.waitForSelector('#pets[aria-busy="false"]');
  return page.locator('#pets tr td:nth-child(2)').allTextContents();
};

describe('examples/kiosk in Chromium', () => {
  it.skipIf(!hasChromium)(
    `filters, pages and adds animals through the form, showing the API's errors${hasChromium ? '' : ` (skipped: ${CHROMIUM} is not installed; .ci/run installs it)`}`,
    async () => {
      kiosk = await startExample('examples/kiosk/server.ts', /kiosk on (http:\/\/\S+\/) using the API at (\S+)/, {
        env: { KIOSK_PORT: '0', API_PORT: '0', KIOSK_API_KEY: 'kiosk-test-key-0001' },
      });
      const [, pageUrl, apiBase] = kiosk.ready;
      expect(new URL(pageUrl!).origin).not.toBe(new URL(apiBase!).origin);

      browser = await chromium.launch({
        executablePath: CHROMIUM,
        // This machine refuses Chromium's background connections; these keep it from trying.
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
      });
      const page = await browser.newPage({ viewport: { width: 1100, height: 760 } });
      const problems: string[] = [];
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
      // A refused CORS request or a script error shows up here; the 400 of the bad form is
      // expected, and Chromium logs every non-2xx answer as "Failed to load resource".
      page.on('console', (message) => {
        if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
          problems.push(`console: ${message.text()}`);
      });
      page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`));

      await page.goto(pageUrl!);
      expect(await shownNames(page)).toEqual(['Biscuit', 'Nimbus', 'Pepper', 'Juniper']);
      expect(await page.isEnabled('#next-page')).toBe(true);

      await page.selectOption('#status-filter', 'pending');
      expect(await shownNames(page)).toEqual(['Nimbus', 'Saffron']);
      expect(await page.isDisabled('#next-page')).toBe(true);

      // The next page comes from the API's Link header, which only CORS lets the page read.
      await page.selectOption('#status-filter', 'available');
      expect(await shownNames(page)).toEqual(['Biscuit', 'Pepper', 'Mochi', 'Clover']);
      await page.click('#next-page');
      expect(await shownNames(page)).toEqual(['Tofu', 'Waffles']);
      expect(await page.textContent('#page-label')).toBe('Page 2');
      expect(await page.isDisabled('#next-page')).toBe(true);

      await page.fill('input[name="name"]', 'Pickles');
      await page.fill('input[name="categoryId"]', '2');
      await page.selectOption('select[name="status"]', 'available');
      await page.click('button[type="submit"]');
      await page.waitForSelector('#add-message:has-text("Added Pickles as #10.")');
      expect(await shownNames(page)).toEqual(['Tofu', 'Waffles', 'Pickles']);

      await page.fill('input[name="name"]', '   ');
      await page.fill('input[name="categoryId"]', '1.5');
      await page.click('button[type="submit"]');
      await page.waitForSelector('#add-error:not([hidden])');
      expect(await page.textContent('#add-error-message')).toMatch(/^The animal is not valid: /);
      expect(await page.locator('#add-error-details li').allTextContents()).toEqual([
        'name: must not be only white space',
        'categoryId: must be an integer from 1 to 9007199254740991',
      ]);
      expect(await shownNames(page)).toEqual(['Tofu', 'Waffles', 'Pickles']);
      await page.screenshot({ path: SCREENSHOT, fullPage: true });

      await page.click('#first-page');
      expect(await shownNames(page)).toEqual(['Biscuit', 'Pepper', 'Mochi', 'Clover']);
      expect(await page.textContent('#page-label')).toBe('Page 1');
      expect(problems).toEqual([]);
    },
    60_000,
  );
});
