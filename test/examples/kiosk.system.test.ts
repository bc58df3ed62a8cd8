/**
 * @module The kiosk example (examples/kiosk). First its servers, without a browser: the page
 * and its config on one origin, the API on another with CORS open to the page's origin only,
 * and one clear line when a port is taken. Then the page in Debian's headless Chromium: at
 * phone, tablet and desktop sizes nothing overlaps, nothing is wider than the screen and
 * every control can be reached and tapped (screenshots go to docs/images/); at phone size it
 * filters, pages and adds animals, shows that it is loading, and words every failure for the
 * person at the kiosk. Then what the package's client brings: a create whose answer is lost
 * is retried with the same Idempotency-Key and stores one animal, and the page on screen is
 * refreshed with If-None-Match, so an unchanged page costs a 304 and nothing on screen moves.
 *
 * Needs Debian's `chromium` at /usr/bin/chromium (`npm test` installs it); without it the
 * browser tests fail and say how to install it.
 */
import { mkdirSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, Page, Request, Route } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../support/chromium.js';
import { killLeftoverExamples, type RunningExample, runExample, startExample } from './runExample.js';

const KIOSK = 'examples/kiosk/server.ts';
const READY = /kiosk on (http:\/\/\S+\/) using the API at (\S+)/;
const KIOSK_ENV = { KIOSK_PORT: '0', API_PORT: '0', KIOSK_API_KEY: 'kiosk-test-key-0001' };

afterAll(killLeftoverExamples);

describe('examples/kiosk servers', () => {
  let kiosk: RunningExample;
  let pageUrl: string;
  let pageOrigin: string;
  let apiBase: string;

  beforeAll(async () => {
    kiosk = await startExample(KIOSK, READY, { env: KIOSK_ENV });
    [, pageUrl = '', apiBase = ''] = kiosk.ready;
    pageOrigin = new URL(pageUrl).origin;
  });

  const preflight = (origin: string) =>
    fetch(`${apiBase}/pets`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });

  it('serves the page, its scripts and its config on the page origin', async () => {
    const html = await fetch(pageUrl);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<script type="module" src="kiosk.js">');
    expect((await fetch(`${pageUrl}kiosk.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await fetch(`${pageUrl}describeFailure.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    // The package's client, bundled at start into one module the browser can import as it is.
    const client = await fetch(`${pageUrl}animal-store-client.js`);
    expect(client.headers.get('content-type')).toMatch(/^text\/javascript/);
    const clientModule = await client.text();
    expect(clientModule).toMatch(/export\s*\{[^}]*\bcreateClient\b[^}]*\bisAnimalStoreClientError\b/);
    expect(clientModule).not.toMatch(/^\s*import\b|\brequire\(/m);
    expect(await (await fetch(`${pageUrl}config.json`)).json()).toEqual({
      apiBase,
      apiKey: 'kiosk-test-key-0001',
      pageSize: 4,
      refreshSeconds: 30,
    });
    expect((await fetch(`${pageUrl}server.ts`)).status).toBe(404);
  });

  it('runs the API on another origin that lets the page post with its key and read Link', async () => {
    expect(new URL(apiBase).origin).not.toBe(pageOrigin);
    const allowed = await preflight(pageOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/i);
    // The client sends these to retry a create safely and to revalidate a page.
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/idempotency-key/i);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/if-none-match/i);

    const listed = await fetch(`${apiBase}/pets?limit=4`, { headers: { origin: pageOrigin, authorization: 'Bearer kiosk-test-key-0001' } });
    expect(listed.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(listed.headers.get('access-control-expose-headers')).toMatch(/\bLink\b/);
    expect(listed.headers.get('access-control-expose-headers')).toMatch(/\bETag\b/);
    expect(listed.headers.get('link')).toMatch(/rel="next"/);
  });

  it('gives other origins nothing a browser would let them read', async () => {
    const refused = await preflight('http://elsewhere.example');
    expect(refused.headers.get('access-control-allow-origin')).toBeNull();
    const listed = await fetch(`${apiBase}/pets`, {
      headers: { origin: 'http://elsewhere.example', authorization: 'Bearer kiosk-test-key-0001' },
    });
    expect(listed.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('stops both servers cleanly on SIGTERM', async () => {
    const { code, stderr } = await kiosk.stop();
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });

  it.each(['KIOSK_PORT', 'API_PORT'])('says in one line that the port in %s is taken and how to choose another', async (variable) => {
    // Hold a port open, as another program would.
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const port = (holder.address() as { port: number }).port;
    try {
      const { code, stdout, stderr } = await runExample(KIOSK, { env: { ...KIOSK_ENV, [variable]: String(port) } });
      expect(code).not.toBe(0);
      expect(code).not.toBeNull();
      const lines = stderr.trimEnd().split('\n');
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`port ${port} (${variable}) is already in use`);
      expect(lines[0]).toMatch(/environment variables KIOSK_PORT and API_PORT/);
      expect(stderr).not.toMatch(/^\s+at |EADDRINUSE|Error:/m);
      expect(stdout).not.toMatch(/kiosk on/);
    } finally {
      holder.close();
    }
  });
});

const SCREENSHOTS = fileURLToPath(new URL('../../docs/images/', import.meta.url));

/** The screen sizes the kiosk must work at; the ones with a `screenshot` are saved for people to look at. */
const SIZES = [
  { width: 360, height: 640 },
  { width: 390, height: 844, screenshot: 'kiosk-390x844.png' },
  { width: 768, height: 1024, screenshot: 'kiosk-768x1024.png' },
  { width: 1280, height: 800, screenshot: 'kiosk-1280x800.png' },
  { width: 1920, height: 1080 },
];
const PHONE = { width: 390, height: 844 };

/** What a shop assistant must never read: field names, codes, status numbers, programmers' limits. */
const JARGON = /categoryId|validation_failed|storage_unavailable|unauthorized|9007199254740991|\b[45]\d\d\b|\bnull\b|undefined/;

describe('examples/kiosk in Chromium', () => {
  let kiosk: RunningExample;
  let browser: Browser;
  let pageUrl: string;
  let pageOrigin: string;
  let apiBase: string;

  beforeAll(async () => {
    kiosk = await startExample(KIOSK, READY, { env: KIOSK_ENV });
    [, pageUrl = '', apiBase = ''] = kiosk.ready;
    pageOrigin = new URL(pageUrl).origin;
    browser = await launchChromium('the kiosk');
  });
  afterAll(async () => {
    await browser?.close();
    await kiosk?.stop();
  });

  /**
   * A new tab of the given size. `problems` collects what a person would not see but must not
   * happen: script errors, requests CORS refused. Chromium also logs every non-2xx answer as
   * "Failed to load resource"; those are left out, as the tests cause them on purpose.
   */
  const openTab = async (viewport: { width: number; height: number }) => {
    const page = await browser.newPage({ viewport });
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(`console: ${message.text()}`);
    });
    // Chromium ends an answered request whose body the page never reads (a bodiless 304, or an
    // error body the client drops before it retries) as "aborted": it was answered, so it is no failure.
    const answered = new Set<Request>();
    page.on('response', (response) => answered.add(response.request()));
    page.on('requestfailed', (request) => {
      if (request.failure()?.errorText === 'net::ERR_ABORTED' && answered.has(request)) return;
      problems.push(`request failed: ${request.url()} ${request.failure()?.errorText}`);
    });
    return { page, problems };
  };

  /** The names in the table once the page has finished loading the list. */
  const shownNames = async (page: Page): Promise<string[]> => {
    await page.waitForSelector('#pets[aria-busy="false"]');
    return page.locator('#pets tr td.name').allTextContents();
  };

  /** Sends the form with a blank name and a fraction as category, which the catalogue refuses. */
  const sendBadForm = async (page: Page) => {
    await page.fill('input[name="name"]', '   ');
    await page.fill('input[name="categoryId"]', '1.5');
    await page.click('#add-button');
    await page.waitForSelector('#add-error:not([hidden])');
  };

  /**
   * What is wrong with the layout as it stands: the page wider than the screen; a card or
   * control sticking out of the screen, or overlapping another; a control outside its card
   * or too small for a finger (44 px, WCAG 2.5.5).
   */
  const layoutProblems = (page: Page) =>
    page.evaluate(() => {
      const problems: string[] = [];
      const nameOf = (element: Element) =>
        element.id
          ? `#${element.id}`
          : `${element.tagName.toLowerCase()}${element.getAttribute('name') ? `[name=${element.getAttribute('name')}]` : ''}`;
      const shown = (element: Element) => element.checkVisibility() && element.getClientRects().length > 0;
      const viewportWidth = document.documentElement.clientWidth;
      if (document.documentElement.scrollWidth > viewportWidth) {
        problems.push(`the page is ${document.documentElement.scrollWidth} px wide on a ${viewportWidth} px screen`);
      }
      const cards = [...document.querySelectorAll('header, main > section, main > details')].filter(shown);
      const controls = [...document.querySelectorAll('button, input, select, textarea, summary, a[href]')].filter(shown);
      const overlap = (a: DOMRect, b: DOMRect) =>
        Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
      for (const group of [cards, controls]) {
        group.forEach((element, index) => {
          const box = element.getBoundingClientRect();
          if (box.left < 0 || box.right > viewportWidth + 0.5) problems.push(`${nameOf(element)} sticks out of the screen`);
          for (const other of group.slice(index + 1)) {
            if (overlap(box, other.getBoundingClientRect())) problems.push(`${nameOf(element)} overlaps ${nameOf(other)}`);
          }
        });
      }
      for (const control of controls) {
        const box = control.getBoundingClientRect();
        const card = cards.find((candidate) => candidate.contains(control));
        const cardBox = card?.getBoundingClientRect();
        if (!cardBox || box.left < cardBox.left || box.right > cardBox.right || box.top < cardBox.top || box.bottom > cardBox.bottom) {
          problems.push(`${nameOf(control)} is not inside its card`);
        }
        if (box.width < 44 || box.height < 44) problems.push(`${nameOf(control)} is ${box.width}x${box.height} px, too small to tap`);
      }
      return problems;
    });

  /** The shown controls that cannot be reached: not visible once scrolled to, or covered by something else at their centre. */
  const unreachableControls = async (page: Page): Promise<string[]> => {
    const unreachable: string[] = [];
    for (const control of await page.locator('button, input, select, textarea, summary, a[href]').all()) {
      if (!(await control.isVisible())) continue;
      await control.scrollIntoViewIfNeeded();
      const problem = await control.evaluate((element) => {
        const box = element.getBoundingClientRect();
        const name = element.id
          ? `#${element.id}`
          : `${element.tagName.toLowerCase()} "${element.textContent?.trim() || element.getAttribute('name')}"`;
        // Scrolling stops on whole pixels, so a box may end a fraction of a pixel past the edge.
        if (box.top < -1 || box.left < -1 || box.bottom > innerHeight + 1 || box.right > innerWidth + 1) {
          return `${name} is not on screen once scrolled to (${box.width}x${box.height} at ${box.left},${box.top} on ${innerWidth}x${innerHeight})`;
        }
        const hit = document.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
        return hit && (hit === element || element.contains(hit)) ? undefined : `${name} is covered by ${hit?.tagName ?? 'nothing'}`;
      });
      if (problem) unreachable.push(problem);
    }
    return unreachable;
  };

  it.each(SIZES)('fits a $width x $height screen: nothing overlaps or sticks out, every control can be reached', async (size) => {
    const { page, problems } = await openTab(size);
    await page.goto(pageUrl);
    expect(await shownNames(page)).toEqual(['Biscuit', 'Nimbus', 'Pepper', 'Juniper']);
    // The form's error and the open settings are part of the layout too.
    await sendBadForm(page);
    await page.click('summary');
    expect(await layoutProblems(page)).toEqual([]);
    expect(await unreachableControls(page)).toEqual([]);

    await page.click('summary');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await page.evaluate(() => scrollTo(0, 0));
    expect(await layoutProblems(page)).toEqual([]);
    if (size.screenshot) {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: `${SCREENSHOTS}${size.screenshot}`, fullPage: true, animations: 'disabled', caret: 'hide' });
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('filters, pages and adds animals through the form on a phone, wording refusals for people', async () => {
    // No request is intercepted here, so CORS is exactly as the browser enforces it.
    const { page, problems } = await openTab(PHONE);
    await page.goto(pageUrl);
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
    await page.click('#add-button');
    await page.waitForSelector('#add-message:has-text("Added Pickles as #10.")');
    expect(await shownNames(page)).toEqual(['Tofu', 'Waffles', 'Pickles']);

    await sendBadForm(page);
    expect(await page.textContent('#add-error-message')).toBe('The animal was not added. Please check the form:');
    expect(await page.locator('#add-error-details li').allTextContents()).toEqual([
      "Please enter the animal's name.",
      'Category must be a whole number of 1 or more.',
    ]);
    expect(await page.locator('[aria-invalid="true"]').evaluateAll((fields) => fields.map((field) => field.getAttribute('name')))).toEqual([
      'name',
      'categoryId',
    ]);
    expect(await page.innerText('body')).not.toMatch(JARGON);
    expect(await shownNames(page)).toEqual(['Tofu', 'Waffles', 'Pickles']);

    await page.fill('input[name="name"]', 'Pickles');
    await page.fill('input[name="categoryId"]', '99999999999999999999');
    await page.click('#add-button');
    await page.waitForSelector('#add-error li:text-is("That category number is too large. Please check it.")');
    expect(await page.locator('[aria-invalid="true"]').count()).toBe(1);

    await page.click('#first-page');
    expect(await shownNames(page)).toEqual(['Biscuit', 'Pepper', 'Mochi', 'Clover']);
    expect(await page.textContent('#page-label')).toBe('Page 1');
    expect(problems).toEqual([]);
    await page.close();
  });

  /**
   * Holds the page's next API request with `method` until `release()`, as a slow network or
   * catalogue would. While any route is set, Playwright answers CORS preflights itself, so the
   * tests that check CORS set none.
   */
  const holdNext = async (page: Page, method: 'GET' | 'POST') => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    // The route stays in place and lets later requests through: unrouting would let the held one go at once.
    await page.route(
      (url) => url.href.startsWith(`${apiBase}/`),
      async (route: Route) => {
        if (!holding || route.request().method() !== method) return route.fallback();
        holding = false;
        await released;
        await route.continue();
      },
    );
    return release;
  };

  it('shows that the list is loading and holds the pager until it has arrived', async () => {
    const { page, problems } = await openTab(PHONE);
    let release = await holdNext(page, 'GET');
    await page.goto(pageUrl, { waitUntil: 'commit' });
    await page.waitForSelector('#list-loading:visible');
    expect(await page.getAttribute('#pets', 'aria-busy')).toBe('true');
    expect(await page.isDisabled('#first-page')).toBe(true);
    expect(await page.isDisabled('#next-page')).toBe(true);
    release();
    expect(await shownNames(page)).toEqual(['Biscuit', 'Nimbus', 'Pepper', 'Juniper']);
    expect(await page.isHidden('#list-loading')).toBe(true);

    release = await holdNext(page, 'GET');
    await page.click('#next-page');
    await page.waitForSelector('#list-loading:visible');
    expect(await page.textContent('#list-loading')).toBe('Loading animals…');
    expect(await page.isDisabled('#next-page')).toBe(true);
    expect(await page.isDisabled('#first-page')).toBe(true);
    expect(await unreachableControls(page)).toEqual([]);
    release();
    expect(await shownNames(page)).toEqual(['Mochi', 'Clover', 'Saffron', 'Tofu']);
    expect(await page.isHidden('#list-loading')).toBe(true);
    expect(await page.isEnabled('#first-page')).toBe(true);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('shows that a new animal is being added and takes no changes or second press meanwhile', async () => {
    const { page, problems } = await openTab(PHONE);
    await page.goto(pageUrl);
    await shownNames(page);
    const release = await holdNext(page, 'POST');
    await page.fill('input[name="name"]', 'Nugget');
    await page.fill('input[name="categoryId"]', '3');
    await page.click('#add-button');
    await page.waitForSelector('#add-button:text-is("Adding…")');
    for (const control of ['input[name="name"]', 'input[name="categoryId"]', 'select[name="status"]', '#add-button']) {
      expect(await page.isDisabled(control), control).toBe(true);
    }
    release();
    await page.waitForSelector('#add-message:has-text("Added Nugget as #11.")');
    expect(await page.textContent('#add-button')).toBe('Add animal');
    expect(await page.isEnabled('#add-button')).toBe(true);
    expect(await page.inputValue('input[name="name"]')).toBe('');
    expect(problems).toEqual([]);
    await page.close();
  });

  it('asks to try again when the catalogue cannot be reached or is unavailable, and says whom to ask about a refused key', async () => {
    const { page, problems } = await openTab(PHONE);
    await page.goto(pageUrl);
    await shownNames(page);

    // No answer at all for the list: a "try again" message, and a button that does.
    await page.route(
      (url) => url.href.startsWith(`${apiBase}/pets?`),
      (route) => route.abort('connectionrefused'),
    );
    await page.click('#next-page');
    await page.waitForSelector('#list-error:visible');
    const listError = await page.textContent('#list-error-message');
    expect(listError).toBe(
      'The animals could not be loaded. The catalogue cannot be reached right now. Please check the connection and try again in a moment.',
    );
    expect(await layoutProblems(page)).toEqual([]);
    expect(await unreachableControls(page)).toEqual([]);
    await page.unrouteAll();
    await page.click('#retry-list');
    expect(await shownNames(page)).toEqual(['Mochi', 'Clover', 'Saffron', 'Tofu']);
    expect(await page.isHidden('#list-error')).toBe(true);

    // The catalogue cannot store the animal just now (503): nothing was added, try again.
    await page.route(`${apiBase}/pets`, (route) =>
      route.request().method() === 'POST'
        ? route.fulfill({
            status: 503,
            headers: { 'access-control-allow-origin': pageOrigin, 'content-type': 'application/json', 'retry-after': '1' },
            body: JSON.stringify({
              code: 'storage_unavailable',
              message: 'The animal could not be stored durably; nothing was stored.',
              status: 503,
            }),
          })
        : route.fallback(),
    );
    await page.fill('input[name="name"]', 'Biscotti');
    await page.fill('input[name="categoryId"]', '1');
    await page.click('#add-button');
    await page.waitForSelector('#add-error:visible');
    expect(await page.textContent('#add-error-message')).toBe(
      'The animal was not added. The catalogue is not answering properly right now. Please try again in a moment.',
    );
    expect(await page.inputValue('input[name="name"]')).toBe('Biscotti');

    // No answer to the create: it may or may not have been stored, and the page says so.
    await page.unrouteAll();
    await page.route(`${apiBase}/pets`, (route) =>
      route.request().method() === 'POST' ? route.abort('connectionreset') : route.fallback(),
    );
    await page.click('#add-button');
    await page.waitForSelector('#add-error-message:has-text("may not have been added")');
    expect(await page.textContent('#add-error-message')).toBe(
      'The catalogue cannot be reached right now, so the animal may not have been added. Please check the list, and try again in a moment if it is missing.',
    );
    await page.unrouteAll();

    // A key the catalogue refuses (401, from the real API): ask a manager, not a programmer.
    await page.click('summary');
    await page.fill('#api-key', 'not-the-kiosk-key');
    await page.press('#api-key', 'Enter');
    await page.waitForSelector('#list-error:visible');
    expect(await page.textContent('#list-error-message')).toBe(
      "The animals could not be loaded. This kiosk's key was not accepted. Please ask a manager to check the kiosk settings.",
    );
    expect(await page.innerText('body')).not.toMatch(JARGON);
    await page.fill('#api-key', 'kiosk-test-key-0001');
    await page.press('#api-key', 'Enter');
    expect(await shownNames(page)).toEqual(['Biscuit', 'Nimbus', 'Pepper', 'Juniper']);
    expect(await page.isHidden('#list-error')).toBe(true);

    // The aborted requests above are the only failures.
    expect(problems.filter((problem) => !/^request failed: .* net::ERR_CONNECTION_(REFUSED|RESET)$/.test(problem))).toEqual([]);
    await page.close();
  });

  /** The catalogue as the API itself answers it, with the kiosk's key: every animal, in id order. */
  const catalogueAt = async (base: string): Promise<{ id: number; name: string; categoryId: number; status: string }[]> =>
    (await fetch(`${base}/pets?limit=100`, { headers: { authorization: `Bearer ${KIOSK_ENV.KIOSK_API_KEY}` } })).json();

  /**
   * Routes the page's creates: records the Idempotency-Key of each, and while `drop()` says so,
   * lets the request reach the catalogue (which stores the animal) and then cuts the
   * connection before the answer reaches the browser, as a Wi-Fi drop would. Answers what
   * the catalogue said to each create whose answer was dropped.
   */
  const dropCreateAnswers = async (page: Page, drop: () => boolean) => {
    const keys: string[] = [];
    const dropped: { status: number; body: any; replayed: string | undefined }[] = [];
    await page.route(`${apiBase}/pets`, async (route) => {
      if (route.request().method() !== 'POST') return route.fallback();
      keys.push((await route.request().allHeaders())['idempotency-key'] ?? '(none)');
      if (!drop()) return route.fallback();
      const answer = await route.fetch();
      dropped.push({ status: answer.status(), body: await answer.json(), replayed: answer.headers()['idempotent-replayed'] });
      await route.abort('connectionreset');
    });
    return { keys, dropped };
  };

  /** Fills the form with an animal, ready to send. */
  const fillForm = async (page: Page, pet: { name: string; categoryId: number; status: string }) => {
    await page.fill('input[name="name"]', pet.name);
    await page.fill('input[name="categoryId"]', String(pet.categoryId));
    await page.selectOption('select[name="status"]', pet.status);
  };

  it('adds an animal once when the connection drops after the catalogue stored it: the retry carries the same Idempotency-Key', async () => {
    const { page, problems } = await openTab(PHONE);
    await page.goto(pageUrl);
    await shownNames(page);
    await page.selectOption('#status-filter', 'sold');
    expect(await shownNames(page)).toEqual(['Juniper']);

    let first = true;
    const { keys, dropped } = await dropCreateAnswers(page, () => {
      const drop = first;
      first = false;
      return drop;
    });
    const replays: (string | undefined)[] = [];
    page.on('response', (response) => {
      if (response.request().method() === 'POST' && response.url() === `${apiBase}/pets`)
        replays.push(response.headers()['idempotent-replayed']);
    });
    const marzipan = { name: 'Marzipan', categoryId: 5, status: 'sold' };
    await fillForm(page, marzipan);
    await page.click('#add-button');
    await page.waitForSelector('#add-message:has-text("Added Marzipan")');

    // The catalogue stored it on the first try, whose answer was lost; the retry got that same animal back.
    expect(dropped).toEqual([{ status: 201, body: { id: expect.any(Number), ...marzipan }, replayed: undefined }]);
    const { id } = dropped[0]!.body;
    expect(await page.textContent('#add-message')).toBe(`Added Marzipan as #${id}.`);
    expect(replays).toEqual(['true']);
    expect(keys).toHaveLength(2);
    expect(keys[0]).toMatch(/^"[\x21-\x7e]{1,255}"$/);
    expect(keys[1]).toBe(keys[0]);
    expect(await page.isHidden('#add-error')).toBe(true);
    expect(await shownNames(page)).toEqual(['Juniper', 'Marzipan']);

    // The catalogue itself holds one Marzipan, and the same key still names that one.
    expect((await catalogueAt(apiBase)).filter((pet) => pet.name === 'Marzipan')).toEqual([{ id, ...marzipan }]);
    const again = await fetch(`${apiBase}/pets`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KIOSK_ENV.KIOSK_API_KEY}`, 'content-type': 'application/json', 'idempotency-key': keys[0]! },
      body: JSON.stringify(marzipan),
    });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await again.json()).toEqual({ id, ...marzipan });
    expect((await catalogueAt(apiBase)).filter((pet) => pet.name === 'Marzipan')).toHaveLength(1);

    expect(problems.filter((problem) => !/^request failed: .* net::ERR_CONNECTION_RESET$/.test(problem))).toEqual([]);
    await page.close();
  });

  it('adds an animal once when no answer came at all and the person presses "Add animal" again', async () => {
    const { page, problems } = await openTab(PHONE);
    await page.goto(pageUrl);
    await shownNames(page);
    await page.selectOption('#status-filter', 'sold');
    await shownNames(page);

    let dropping = true;
    const { keys, dropped } = await dropCreateAnswers(page, () => dropping);
    const praline = { name: 'Praline', categoryId: 6, status: 'sold' };
    await fillForm(page, praline);
    await page.click('#add-button');
    await page.waitForSelector('#add-error-message:has-text("may not have been added")');
    // Every try reached the catalogue and lost its answer: the client tried again, always with the same key.
    expect(dropped.length).toBeGreaterThan(1);
    expect(new Set(keys).size).toBe(1);
    const { id } = dropped[0]!.body;
    expect(dropped).toEqual(
      dropped.map((_, index) => ({ status: 201, body: { id, ...praline }, replayed: index === 0 ? undefined : 'true' })),
    );

    // Pressing again sends the same animal with the same key: the catalogue answers with the one it stored.
    dropping = false;
    await page.click('#add-button');
    await page.waitForSelector('#add-message:has-text("Added Praline")');
    expect(await page.textContent('#add-message')).toBe(`Added Praline as #${id}.`);
    expect(new Set(keys).size).toBe(1);
    expect((await shownNames(page)).filter((name) => name === 'Praline')).toEqual(['Praline']);
    expect((await catalogueAt(apiBase)).filter((pet) => pet.name === 'Praline')).toEqual([{ id, ...praline }]);

    // A new animal afterwards goes with a new key.
    await fillForm(page, { name: 'Truffle', categoryId: 6, status: 'sold' });
    await page.click('#add-button');
    await page.waitForSelector('#add-message:has-text("Added Truffle")');
    expect(keys.at(-1)).not.toBe(keys[0]);

    expect(problems.filter((problem) => !/^request failed: .* net::ERR_CONNECTION_RESET$/.test(problem))).toEqual([]);
    await page.close();
  });

  it('refreshes the page on screen with If-None-Match: unchanged, a 304 and nothing on screen moves; changed, the new rows without a loading state', async () => {
    // A kiosk of its own, refreshing every second, so the other tests see no refreshes.
    const polling = await startExample(KIOSK, READY, { env: { ...KIOSK_ENV, KIOSK_REFRESH_SECONDS: '1' } });
    try {
      const [, pollingPage = '', pollingApi = ''] = polling.ready;
      const { page, problems } = await openTab(PHONE);
      const answers: { status: number; etag: string | null; ifNoneMatch: string | undefined }[] = [];
      page.on('response', async (response) => {
        const request = response.request();
        if (request.method() !== 'GET' || request.url() !== `${pollingApi}/pets?limit=4&status=pending`) return;
        const ifNoneMatch = (await request.allHeaders())['if-none-match'];
        answers.push({ status: response.status(), etag: await response.headerValue('etag'), ifNoneMatch });
      });
      await page.goto(pollingPage);
      await shownNames(page);
      await page.selectOption('#status-filter', 'pending');
      expect(await shownNames(page)).toEqual(['Nimbus', 'Saffron']);

      // From here on, record every change to the list, its pager and its messages.
      await page.evaluate(() => {
        const changes: string[] = [];
        (window as any).listChanges = changes;
        const nameOf = (node: Node) => (node instanceof Element && node.id ? `#${node.id}` : node.nodeName.toLowerCase());
        new MutationObserver((records) => {
          for (const record of records) {
            const value = record.type === 'attributes' ? `=${(record.target as Element).getAttribute(record.attributeName!)}` : '';
            changes.push(`${record.type} ${nameOf(record.target)} ${record.attributeName ?? ''}${value}`.trim());
          }
        }).observe(document.querySelector('section.browse')!, { subtree: true, childList: true, attributes: true, characterData: true });
      });
      const listChanges = (): Promise<string[]> => page.evaluate(() => (window as any).listChanges.splice(0));

      // Unchanged: each refresh sends the page's ETag and gets a bodiless 304.
      await expect.poll(() => answers.length, { timeout: 15_000 }).toBeGreaterThanOrEqual(3);
      const [shown, ...refreshes] = answers;
      expect(shown).toEqual({ status: 200, etag: expect.stringMatching(/^"[^"]+"$/), ifNoneMatch: undefined });
      for (const refresh of refreshes.slice(0, 2)) expect(refresh).toEqual({ status: 304, etag: shown!.etag, ifNoneMatch: shown!.etag });
      expect(await listChanges()).toEqual([]);
      expect(await shownNames(page)).toEqual(['Nimbus', 'Saffron']);

      // Changed: another kiosk adds a pending animal; the next refresh brings it, redrawing only the rows.
      const created = await fetch(`${pollingApi}/pets`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KIOSK_ENV.KIOSK_API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sorbet', categoryId: 2, status: 'pending' }),
      });
      expect(created.status).toBe(201);
      await page.waitForSelector('#pets td.name:text-is("Sorbet")', { timeout: 15_000 });
      expect(await page.locator('#pets td.name').allTextContents()).toEqual(['Nimbus', 'Saffron', 'Sorbet']);
      // No loading state, no message, no pager change: only the table's rows were drawn again.
      expect(new Set(await listChanges())).toEqual(new Set(['childList #pets']));
      // It came as the answer to a revalidation: a 200 with the new tag.
      await expect
        .poll(() => answers.find((answer) => answer.status === 200 && answer.etag !== shown!.etag)?.ifNoneMatch)
        .toBe(shown!.etag);

      expect(problems).toEqual([]);
      await page.close();
    } finally {
      await polling.stop();
    }
  });
});
