/**
 * @module The API reference page (`/v1/docs`) of the real server in Debian's headless
 * Chromium: Swagger UI, served by the server itself from swagger-ui-dist, draws the
 * reference from openapi.json; nothing is fetched from anywhere else, nothing logs an
 * error, the Content-Security-Policy holds. The screenshot goes to docs/images/reference.png.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`npm test` installs it); without it the
 * test fails and says how to install it.
 */
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCS_CONTENT_SECURITY_POLICY } from '../../../core/http/docsPage.js';
import { launchChromium } from '../../support/chromium.js';
import { killLeftoverProcesses, startCli } from '../../support/startCli.js';

const SCREENSHOT = fileURLToPath(new URL('../../../docs/images/reference.png', import.meta.url));

describe('the reference page in Chromium', () => {
  let browser: Browser;
  let base: string;

  beforeAll(async () => {
    base = (await startCli(['--memory', '--port', '0', '--api-key', 'reference-page-key-01', '--quiet'])).url;
    browser = await launchChromium('the reference page');
  });
  afterAll(async () => {
    await browser?.close();
    killLeftoverProcesses();
  });

  it('draws the three operations from openapi.json with local files only, no console error, and the CSP in force', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    const origin = new URL(base).origin;
    const elsewhere: string[] = [];
    const problems: string[] = [];
    // Anything for another origin is recorded and never sent.
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (new URL(url).origin === origin || url.startsWith('data:')) return route.continue();
      elsewhere.push(url);
      return route.abort();
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    await page.addInitScript(() => {
      document.addEventListener('securitypolicyviolation', (event) =>
        console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`),
      );
    });

    const answer = await page.goto(`${base}/docs`);
    expect(answer?.status()).toBe(200);
    expect(answer?.headers()['content-security-policy']).toBe(DOCS_CONTENT_SECURITY_POLICY);
    await page.locator('.opblock').first().waitFor({ timeout: 15_000 });

    const operations = await page.locator('.opblock').evaluateAll((blocks) =>
      blocks.map((block) => ({
        method: block.querySelector('.opblock-summary-method')?.textContent?.trim(),
        // Swagger UI breaks long paths with zero-width spaces.
        path: block
          .querySelector('.opblock-summary-path, .opblock-summary-path__deprecated')
          ?.textContent?.replace(/\u200b/g, '')
          .trim(),
        deprecated: block.classList.contains('opblock-deprecated'),
      })),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        { method: 'GET', path: '/pets', deprecated: false },
        { method: 'POST', path: '/pets', deprecated: false },
        { method: 'GET', path: '/pets/{petId}', deprecated: true },
      ]),
    );
    // The page's own deprecation notice is there for getPet's Link: rel="deprecation".
    await expect(page.locator('#deprecation h2').textContent()).resolves.toContain('GET /v1/pets/{petId}');
    // The reference was drawn from the server's own document.
    await expect(page.locator('.information-container .title').textContent()).resolves.toMatch(/Animal Store/i);

    await page.screenshot({ path: SCREENSHOT, fullPage: true, animations: 'disabled', caret: 'hide' });
    expect(elsewhere).toEqual([]);
    expect(problems).toEqual([]);
    // A script injected from outside the page's origin would be refused by the CSP.
    const refused = await page.evaluate(
      () =>
        new Promise<string>((resolve) => {
          document.addEventListener('securitypolicyviolation', (event) => resolve(event.violatedDirective), { once: true });
          const script = document.createElement('script');
          script.textContent = 'window.injected = true';
          document.body.append(script);
          setTimeout(() => resolve('no violation'), 2_000);
        }),
    );
    expect(refused).toMatch(/^script-src/);
    await page.close();
  });
});
