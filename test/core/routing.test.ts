import { describe, expect, it } from 'vitest';
import { errorOf, makeService } from './helpers.js';

describe('paths, methods and the base path', () => {
  it('answers nothing outside the base path: /pets without /v1 is a 404 Error', async () => {
    const { call } = makeService();
    for (const path of ['/pets', '/', '/v2/pets', '/v1', '/v1/', '/v1/pets/', '/v1/pets/1/x', '/v1petsx', '/v1/pet']) {
      const response = await call(path);
      expect(response.status, path).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
    }
  });

  it('serves the operations under a configured base path only', async () => {
    const { call } = makeService({ basePath: '/api/animals/' });
    expect((await call('/api/animals/pets')).status).toBe(200);
    expect((await call('/v1/pets')).status).toBe(404);
    const created = await call('/api/animals/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Rex","categoryId":1}',
    });
    expect(created.headers.get('location')).toBe('/api/animals/pets/1');
  });

  it('answers another method on a known path with 405 and Allow', async () => {
    const { call } = makeService();
    for (const [path, method, allow] of [
      ['/v1/pets', 'DELETE', 'GET, HEAD, POST'],
      ['/v1/pets', 'PUT', 'GET, HEAD, POST'],
      ['/v1/pets', 'PATCH', 'GET, HEAD, POST'],
      ['/v1/pets/1', 'POST', 'GET, HEAD'],
      ['/v1/pets/1', 'DELETE', 'GET, HEAD'],
      ['/v1/openapi.json', 'POST', 'GET, HEAD'],
    ] as const) {
      const response = await call(path, { method });
      expect(response.status, `${method} ${path}`).toBe(405);
      expect(response.headers.get('allow')).toBe(allow);
      expect((await errorOf(response)).code).toBe('method_not_allowed');
    }
  });

  it('answers HEAD like GET without a body', async () => {
    const { call, seed } = makeService();
    await seed([
      { name: 'Rex', categoryId: 1 },
      { name: 'Tom', categoryId: 1 },
    ]);
    const get = await call('/v1/pets?limit=1');
    const head = await call('/v1/pets?limit=1', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('link')).toBe(get.headers.get('link'));
    expect(head.headers.get('content-length')).toBe(String(new TextEncoder().encode(await get.text()).byteLength));
    const missing = await call('/v1/pets/99', { method: 'HEAD' });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toBe('');
    expect(missing.headers.get('sunset')).not.toBeNull();
    expect((await call('/v1/pets', { method: 'HEAD', key: null })).status).toBe(401);
  });

  it('answers /healthz with 200 without a key, outside the base path', async () => {
    const { call } = makeService();
    const response = await call('/healthz', { key: null });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
    expect((await call('/v1/healthz')).status).toBe(404);
  });

  it('publishes its OpenAPI 3.1 document without a key, drawn from the validating schemas', async () => {
    const { call } = makeService();
    const response = await call('/v1/openapi.json', { key: null });
    expect(response.status).toBe(200);
    const document = (await response.json()) as any;
    expect(document.openapi).toBe('3.1.0');
    expect(document.info.version).toBe('1.0.0');
    expect(document.servers).toEqual([{ url: '/v1' }]);
    expect(Object.keys(document.paths)).toEqual(expect.arrayContaining(['/pets', '/pets/{petId}']));
    expect(document.paths['/pets/{petId}'].get.deprecated).toBe(true);
    const { NewPet, Pet } = document.components.schemas;
    expect(NewPet.required).toEqual(['name', 'categoryId']);
    expect(NewPet.additionalProperties).toBe(false);
    expect(NewPet.properties.name).toMatchObject({ type: 'string', minLength: 1, maxLength: 200 });
    expect(NewPet.properties.categoryId).toMatchObject({ type: 'integer', minimum: 1, maximum: Number.MAX_SAFE_INTEGER });
    expect(NewPet.properties.status.enum).toEqual(['available', 'pending', 'sold']);
    expect(Pet.required).toEqual(['id', 'name', 'categoryId', 'status']);
    const limit = document.paths['/pets'].get.parameters.find((p: any) => p.name === 'limit');
    expect(limit.schema).toMatchObject({ type: 'integer', minimum: 1, maximum: 100, default: 20 });
    expect(document.components.securitySchemes.bearerAuth).toEqual({ type: 'http', scheme: 'bearer' });
  });

  it('turns an unexpected failure into a bare 500 and reports it to the operator only', async () => {
    const failing = {
      create: async () => {
        throw new Error('disk on fire at /secret/path');
      },
      createIdempotent: async () => {
        throw new Error('disk on fire at /secret/path');
      },
      get: async () => {
        throw new TypeError('cannot read x of undefined');
      },
      list: async () => {
        throw new Error('boom');
      },
      close: async () => {},
    };
    const { call, post, errors } = makeService({ storage: failing });
    for (const response of [await call('/v1/pets'), await call('/v1/pets/1'), await post({ name: 'Rex', categoryId: 1 })]) {
      expect(response.status).toBe(500);
      const text = await response.clone().text();
      expect(text).not.toMatch(/secret|fire|boom|undefined|at |\.ts/);
      expect((await errorOf(response)).code).toBe('internal_error');
    }
    expect(errors).toHaveLength(3);
  });

  it('passes a storage_unavailable failure through as 503', async () => {
    const { AnimalStoreError } = await import('../../core/index.js');
    const storage = {
      create: async () => {
        throw new AnimalStoreError('storage_unavailable', 'The animal could not be stored durably; nothing was stored.');
      },
      createIdempotent: async () => {
        throw new AnimalStoreError('storage_unavailable', 'The animal could not be stored durably; nothing was stored.');
      },
      get: async () => undefined,
      list: async () => [],
      close: async () => {},
    };
    const { post } = makeService({ storage });
    const response = await post({ name: 'Rex', categoryId: 1 });
    expect(response.status).toBe(503);
    expect((await errorOf(response)).code).toBe('storage_unavailable');
  });
});

describe('CORS', () => {
  const origin = 'http://kiosk.local:5173';

  it('is off by default: no CORS headers, and a preflight needs a key like anything else', async () => {
    const { call } = makeService();
    const response = await call('/v1/pets', { headers: { origin } });
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
    const preflight = await call('/v1/pets', {
      method: 'OPTIONS',
      key: null,
      headers: { origin, 'access-control-request-method': 'POST' },
    });
    expect(preflight.status).toBe(401);
  });

  it('answers preflights and labels answers for a named origin only', async () => {
    const { call } = makeService({ cors: { origins: [origin] } });
    const preflight = await call('/v1/pets', {
      method: 'OPTIONS',
      key: null,
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe(origin);
    expect(preflight.headers.get('access-control-allow-headers')).toMatch(/Authorization/);
    expect(preflight.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST');
    expect(preflight.headers.get('vary')).toBe('Origin');

    const answer = await call('/v1/pets', { headers: { origin } });
    expect(answer.headers.get('access-control-allow-origin')).toBe(origin);
    expect(answer.headers.get('access-control-expose-headers')).toMatch(/Link/);
    expect(answer.headers.get('vary')).toBe('Origin');
    const refused = await call('/v1/pets', { key: null, headers: { origin } });
    expect(refused.headers.get('access-control-allow-origin')).toBe(origin);

    const stranger = await call('/v1/pets', { headers: { origin: 'http://evil.example' } });
    expect(stranger.headers.get('access-control-allow-origin')).toBeNull();
    const strangerPreflight = await call('/v1/pets', {
      method: 'OPTIONS',
      key: null,
      headers: { origin: 'http://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(strangerPreflight.status).toBe(401);
  });
});
