/** @module Conditional GETs, per-key rate limits, the deprecated operation's sunset, and the reference page. */
import { describe, expect, it } from 'vitest';
import { errorOf, makeService, OTHER_KEY } from './helpers.js';

describe('conditional GETs', () => {
  it('tags a list page with a strong ETag and answers a matching If-None-Match with 304 and no body', async () => {
    const { call, seed } = makeService();
    await seed([{ name: 'Rex', categoryId: 1 }]);
    const first = await call('/v1/pets');
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    const again = await call('/v1/pets', { headers: { 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
    expect(again.headers.get('etag')).toBe(etag);
    expect(again.headers.get('cache-control')).toBe('private, no-cache');
    // The same tag in a list, weak or not, and * match too.
    for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
      expect((await call('/v1/pets', { headers: { 'if-none-match': header } })).status, header).toBe(304);
    }
    expect((await call('/v1/pets', { headers: { 'if-none-match': '"stale"' } })).status).toBe(200);
  });

  it('gives a page a new ETag when it changes, including when it only gains a next page', async () => {
    const { call, seed } = makeService();
    await seed([{ name: 'A', categoryId: 1 }]);
    const before = (await call('/v1/pets?limit=1')).headers.get('etag')!;
    await seed([{ name: 'B', categoryId: 1 }]);
    const after = await call('/v1/pets?limit=1', { headers: { 'if-none-match': before } });
    // Same animal on the page, but now a Link to a next page: a different representation.
    expect(after.status).toBe(200);
    expect(after.headers.get('link')).toMatch(/rel="next"/);
    expect(after.headers.get('etag')).not.toBe(before);
    const revalidated = await call('/v1/pets?limit=1', { headers: { 'if-none-match': after.headers.get('etag')! } });
    expect(revalidated.status).toBe(304);
    expect(revalidated.headers.get('link')).toBe(after.headers.get('link'));
  });

  it('tags getPet answers too, keeping the deprecation headers on the 304', async () => {
    const { call, seed } = makeService();
    await seed([{ name: 'Rex', categoryId: 1 }]);
    const etag = (await call('/v1/pets/1')).headers.get('etag')!;
    const notModified = await call('/v1/pets/1', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers.get('deprecation')).toBe('@1764547200');
    expect(notModified.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  });

  it('answers HEAD with If-None-Match like GET: 304', async () => {
    const { call } = makeService();
    const etag = (await call('/v1/pets')).headers.get('etag')!;
    expect((await call('/v1/pets', { method: 'HEAD', headers: { 'if-none-match': etag } })).status).toBe(304);
  });
});

describe('rate limits per API key', () => {
  it('are off by default: no RateLimit fields, no 429', async () => {
    const { call } = makeService();
    for (let request = 0; request < 50; request++) expect((await call('/v1/pets')).status).toBe(200);
    const response = await call('/v1/pets');
    expect(response.headers.get('ratelimit')).toBeNull();
    expect(response.headers.get('ratelimit-policy')).toBeNull();
  });

  it('tell every authenticated answer the policy and what is left, and answer 429 with Retry-After past the quota', async () => {
    const now = Date.parse('2026-11-21T12:00:10Z');
    const { call, post } = makeService({ now: () => now, rateLimit: { limit: 3, windowSeconds: 60 } });
    const answers = [await call('/v1/pets'), await post({ name: 'Rex', categoryId: 1 }), await call('/v1/pets/9')];
    expect(answers.map((answer) => answer.status)).toEqual([200, 201, 404]);
    expect(answers.map((answer) => answer.headers.get('ratelimit'))).toEqual([
      '"default";r=2;t=50',
      '"default";r=1;t=50',
      '"default";r=0;t=50',
    ]);
    for (const answer of answers) expect(answer.headers.get('ratelimit-policy')).toBe('"default";q=3;w=60');
    const over = await call('/v1/pets');
    expect(over.status).toBe(429);
    expect(over.headers.get('retry-after')).toBe('50');
    expect(over.headers.get('ratelimit')).toBe('"default";r=0;t=50');
    expect(await errorOf(over)).toMatchObject({ code: 'rate_limited', message: expect.stringMatching(/3 requests/) });
  });

  it('give each key its own quota, restore it in the next window, and never count callers without a key', async () => {
    let now = Date.parse('2026-11-21T12:00:00Z');
    const { call } = makeService({ now: () => now, rateLimit: { limit: 2, windowSeconds: 10 } });
    for (let attempt = 0; attempt < 1000; attempt++) await call('/v1/pets', { key: `unknown-key-${attempt}-000000` });
    await call('/v1/pets');
    await call('/v1/pets');
    expect((await call('/v1/pets')).status).toBe(429);
    expect((await call('/v1/pets', { key: OTHER_KEY })).status).toBe(200);
    const refused = await call('/v1/pets', { key: null });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('ratelimit')).toBeNull();
    now += 10_000;
    expect((await call('/v1/pets')).status).toBe(200);
  });

  it('refuse a policy that is not whole numbers of 1 or more', () => {
    expect(() => makeService({ rateLimit: { limit: 0, windowSeconds: 60 } })).toThrow(/rate limit/);
    expect(() => makeService({ rateLimit: { limit: 10, windowSeconds: 0.5 } })).toThrow(/window/);
  });
});

describe('the sunset of GET /pets/{petId}', () => {
  const SUNSET = Date.parse('2030-12-05T00:00:00Z');

  it('works as before until the Sunset, pointing at its deprecation notice', async () => {
    const { call, seed } = makeService({ now: () => SUNSET - 1 });
    await seed([{ name: 'Rex', categoryId: 1 }]);
    const response = await call('/v1/pets/1');
    expect(response.status).toBe(200);
    expect(response.headers.get('link')).toBe(
      '</v1/pets>; rel="successor-version", </v1/docs#deprecation>; rel="deprecation"; type="text/html"',
    );
  });

  it('answers 410 gone from the Sunset on, whatever the id, saying what to use instead', async () => {
    const { call, seed } = makeService({ now: () => SUNSET });
    await seed([{ name: 'Rex', categoryId: 1 }]);
    for (const path of ['/v1/pets/1', '/v1/pets/2', '/v1/pets/x']) {
      const response = await call(path);
      expect(response.status, path).toBe(410);
      expect(response.headers.get('link')).toMatch(/^<\/v1\/pets>; rel="successor-version"/);
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(await errorOf(response)).toMatchObject({
        code: 'gone',
        message: expect.stringMatching(/GET \/v1\/pets with the status filter/),
      });
    }
    expect((await call('/v1/pets/1', { key: null })).status).toBe(401);
    expect((await call('/v1/pets')).status).toBe(200);
  });
});

describe('the reference page', () => {
  it('is public HTML at {base}/docs with the deprecation notice the Link points at, and no outside script', async () => {
    const { call } = makeService();
    const response = await call('/v1/docs', { key: null });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(response.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    const html = await response.text();
    expect(html).toContain('id="deprecation"');
    expect(html).toContain('5 Dec 2030');
    expect(html).toContain('href="openapi.json"');
    expect(html).not.toMatch(/https?:\/\//);
  });

  it('loads the renderer from its own files when an adapter provides them, and only those', async () => {
    const files: Record<string, string> = { 'swagger-ui.css': 'body{}', 'swagger-ui-bundle.js': 'var SwaggerUIBundle;' };
    const { call } = makeService({
      docsAssets: async (name) =>
        files[name] === undefined ? undefined : { body: new TextEncoder().encode(files[name]), type: 'text/plain' },
    });
    expect(await (await call('/v1/docs', { key: null })).text()).toContain('<script src="docs/swagger-ui-bundle.js"></script>');
    expect(await (await call('/v1/docs/swagger-ui.css', { key: null })).text()).toBe('body{}');
    expect(await (await call('/v1/docs/start.js', { key: null })).text()).toContain("url: 'openapi.json'");
    expect((await call('/v1/docs/package.json', { key: null })).status).toBe(404);
    expect((await call('/v1/docs/..%2fpackage.json', { key: null })).status).toBe(404);
  });

  it('says where the full reference is when no renderer is installed', async () => {
    const { call } = makeService();
    const page = await (await call('/v1/docs', { key: null })).text();
    expect(page).not.toContain('<script');
    expect(page).toContain('npm install swagger-ui-dist');
    expect((await call('/v1/docs/swagger-ui-bundle.js', { key: null })).status).toBe(404);
  });
});
