/**
 * @module One HTTP suite, run on the standalone server, the Express mount and the fetch
 * handler: `http.test.ts` runs it in process, `http.system.test.ts` over sockets.
 */
import { expect, it } from 'vitest';
import { type AdapterImplementation, describeEachAdapter, KEY } from './eachAdapter.js';

const auth = { authorization: `Bearer ${KEY}` };
const json = { ...auth, 'content-type': 'application/json' };

/** Declares the HTTP interface's suite once per adapter given. */
export const describeHttpInterface = (implementations: AdapterImplementation[]): void =>
  describeEachAdapter(implementations, 'HTTP interface', (adapter) => {
    const create = (pet: object) => adapter().request('/v1/pets', { method: 'POST', headers: json, body: JSON.stringify(pet) });

    const errorOf = async (response: Response) => {
      expect(response.headers.get('content-type')).toMatch(/^application\/json/);
      const body = (await response.json()) as { code: string; status: number; message: string };
      expect(body.status).toBe(response.status);
      return body;
    };

    it('refuses a request without a key with 401 and a Bearer challenge', async () => {
      const response = await adapter().request('/v1/pets');
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');
      expect((await errorOf(response)).code).toBe('unauthorized');
    });

    it('refuses a wrong key with error="invalid_token"', async () => {
      const response = await adapter().request('/v1/pets', { headers: { authorization: 'Bearer nope' } });
      expect(response.status).toBe(401);
      expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store", error="invalid_token"');
    });

    it('creates an animal: 201, the animal, and a Location under the mount path', async () => {
      const response = await create({ name: 'Rex', categoryId: 7 });
      expect(response.status).toBe(201);
      expect(await response.json()).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'available' });
      expect(response.headers.get('location')).toBe(`${adapter().mountPath}/v1/pets/1`);
      const followed = await adapter().requestUrl(response.headers.get('location')!, { headers: auth });
      expect(followed.status).toBe(200);
    });

    it('refuses an invalid animal with 400 validation_failed naming the field', async () => {
      const response = await create({ name: 'Rex', categoryId: 0 });
      expect(response.status).toBe(400);
      const body = (await errorOf(response)) as unknown as { code: string; details: Array<{ path: string }> };
      expect(body.code).toBe('validation_failed');
      expect(body.details.map((detail) => detail.path)).toEqual(['categoryId']);
    });

    it('refuses malformed JSON with 400 invalid_json', async () => {
      const response = await adapter().request('/v1/pets', { method: 'POST', headers: json, body: '{"name": "Rex",' });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_json');
    });

    it('refuses an empty body with 400 invalid_json', async () => {
      const response = await adapter().request('/v1/pets', { method: 'POST', headers: json, body: '' });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('invalid_json');
    });

    it('refuses a category id beyond 2^53−1 instead of rounding it', async () => {
      const body = '{"name":"Rex","categoryId":9007199254740993}';
      const response = await adapter().request('/v1/pets', { method: 'POST', headers: json, body });
      expect(response.status).toBe(400);
      expect((await errorOf(response)).code).toBe('validation_failed');
    });

    it('lists animals a page at a time, following Link rel="next" under the mount path', async () => {
      for (const name of ['A', 'B', 'C']) expect((await create({ name, categoryId: 1 })).status).toBe(201);
      const first = await adapter().request('/v1/pets?limit=2', { headers: auth });
      expect(first.status).toBe(200);
      expect(((await first.json()) as Array<{ name: string }>).map((pet) => pet.name)).toEqual(['A', 'B']);
      const link = /^<([^>]+)>; rel="next"$/.exec(first.headers.get('link') ?? '');
      expect(link?.[1]).toMatch(new RegExp(`^${adapter().mountPath}/v1/pets\\?limit=2&cursor=`));
      const second = await adapter().requestUrl(link![1]!, { headers: auth });
      expect(((await second.json()) as Array<{ name: string }>).map((pet) => pet.name)).toEqual(['C']);
      expect(second.headers.get('link')).toBeNull();
    });

    it('filters by status and keeps the filter in the next link', async () => {
      await create({ name: 'A', categoryId: 1, status: 'sold' });
      await create({ name: 'B', categoryId: 1 });
      await create({ name: 'C', categoryId: 1, status: 'sold' });
      const response = await adapter().request('/v1/pets?limit=1&status=sold', { headers: auth });
      expect(((await response.json()) as Array<{ name: string }>).map((pet) => pet.name)).toEqual(['A']);
      expect(response.headers.get('link')).toMatch(/[?&]status=sold&/);
    });

    it('gets one animal with the deprecation headers and a successor link under the mount path', async () => {
      await create({ name: 'Rex', categoryId: 7 });
      const response = await adapter().request('/v1/pets/1', { headers: auth });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'available' });
      expect(response.headers.get('deprecation')).toBe('@1764547200');
      expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
      expect(response.headers.get('link')).toBe(
        `<${adapter().mountPath}/v1/pets>; rel="successor-version", <${adapter().mountPath}/v1/docs#deprecation>; rel="deprecation"; type="text/html"`,
      );
    });

    it('answers 404 not_found, still deprecated, for an id that names no animal', async () => {
      const response = await adapter().request('/v1/pets/42', { headers: auth });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
      expect(response.headers.get('deprecation')).toBe('@1764547200');
    });

    it('answers 404 not_found for an unknown path under the mount', async () => {
      const response = await adapter().request('/v1/cats', { headers: auth });
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
    });

    it('answers 405 with Allow for a known path and another method', async () => {
      const response = await adapter().request('/v1/pets', { method: 'DELETE', headers: auth });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD, POST');
      expect((await errorOf(response)).code).toBe('method_not_allowed');
    });

    it('answers 415 for a body that is not JSON', async () => {
      const response = await adapter().request('/v1/pets', {
        method: 'POST',
        headers: { ...auth, 'content-type': 'text/plain' },
        body: '{"name":"Rex","categoryId":1}',
      });
      expect(response.status).toBe(415);
      expect((await errorOf(response)).code).toBe('unsupported_media_type');
    });

    it('answers 413 for a body over 64 KiB, and goes on serving', async () => {
      const body = JSON.stringify({ name: 'x'.repeat(70 * 1024), categoryId: 1 });
      const response = await adapter().request('/v1/pets', { method: 'POST', headers: json, body });
      expect(response.status).toBe(413);
      expect((await errorOf(response)).code).toBe('payload_too_large');
      expect((await create({ name: 'Rex', categoryId: 1 })).status).toBe(201);
    });

    it('answers HEAD like GET, without a body', async () => {
      await create({ name: 'Rex', categoryId: 7 });
      const get = await adapter().request('/v1/pets', { headers: auth });
      const getBody = await get.text();
      const head = await adapter().request('/v1/pets', { method: 'HEAD', headers: auth });
      expect(head.status).toBe(200);
      expect(await head.text()).toBe('');
      expect(head.headers.get('content-type')).toBe(get.headers.get('content-type'));
      expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(getBody)));
    });

    it('answers /healthz without a key', async () => {
      const response = await adapter().request('/healthz');
      expect(response.status).toBe(200);
    });

    it('publishes its OpenAPI document without a key, with the mounted base as its server', async () => {
      const response = await adapter().request('/v1/openapi.json');
      expect(response.status).toBe(200);
      const document = (await response.json()) as { openapi: string; servers: Array<{ url: string }> };
      expect(document.openapi).toBe('3.1.0');
      expect(document.servers[0]?.url).toBe(`${adapter().mountPath}/v1`);
    });
  });
