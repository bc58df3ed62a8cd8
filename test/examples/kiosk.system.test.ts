/**
 * @module The kiosk example's servers, without a browser: the page and its config on one
 * origin, the API on another, with CORS open to the page's origin only. (The page itself is
 * clicked through in Chromium by test/kiosk/kiosk.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverExamples, type RunningExample, startExample } from './runExample.js';

let kiosk: RunningExample;
let pageUrl: string;
let pageOrigin: string;
let apiBase: string;

beforeAll(async () => {
  kiosk = await startExample('examples/kiosk/server.ts', /kiosk on (http:\/\/\S+\/) using the API at (\S+)/, {
    env: { KIOSK_PORT: '0', API_PORT: '0', KIOSK_API_KEY: 'kiosk-test-key-0001' },
  });
  [, pageUrl = '', apiBase = ''] = kiosk.ready;
  pageOrigin = new URL(pageUrl).origin;
});
afterAll(killLeftoverExamples);

const preflight = (origin: string) =>
  fetch(`${apiBase}/pets`, {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
  });

describe('examples/kiosk servers', () => {
  it('serves the page, its script and its config on the page origin', async () => {
    const html = await fetch(pageUrl);
    expect(html.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await html.text()).toContain('<script type="module" src="kiosk.js">');
    expect((await fetch(`${pageUrl}kiosk.js`)).headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(await (await fetch(`${pageUrl}config.json`)).json()).toEqual({ apiBase, apiKey: 'kiosk-test-key-0001', pageSize: 4 });
    expect((await fetch(`${pageUrl}server.ts`)).status).toBe(404);
  });

  it('runs the API on another origin that lets the page post with its key and read Link', async () => {
    expect(new URL(apiBase).origin).not.toBe(pageOrigin);
    const allowed = await preflight(pageOrigin);
    expect(allowed.status).toBe(204);
    expect(allowed.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(allowed.headers.get('access-control-allow-headers')).toMatch(/authorization/i);

    const listed = await fetch(`${apiBase}/pets?limit=4`, { headers: { origin: pageOrigin, authorization: 'Bearer kiosk-test-key-0001' } });
    expect(listed.headers.get('access-control-allow-origin')).toBe(pageOrigin);
    expect(listed.headers.get('access-control-expose-headers')).toMatch(/\bLink\b/);
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
});
