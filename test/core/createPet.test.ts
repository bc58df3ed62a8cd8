import { describe, expect, it } from 'vitest';
import { errorOf, makeService } from './helpers.js';

describe('POST /v1/pets', () => {
  it('creates an animal: 201, the animal with id 1, 2, 3… and a Location', async () => {
    const { post } = makeService();
    const first = await post({ name: 'Rex', categoryId: 7, status: 'pending' });
    expect(first.status).toBe(201);
    expect(first.headers.get('location')).toBe('/v1/pets/1');
    expect(await first.json()).toEqual({ id: 1, name: 'Rex', categoryId: 7, status: 'pending' });
    const second = await post({ name: 'Tom', categoryId: 1 });
    expect(second.headers.get('location')).toBe('/v1/pets/2');
    expect(await second.json()).toEqual({ id: 2, name: 'Tom', categoryId: 1, status: 'available' });
  });

  it('stores the name exactly as sent', async () => {
    const { post, call } = makeService();
    const name = '  Señor 🐕 "Rex" ';
    await post({ name, categoryId: 1 });
    expect(await (await call('/v1/pets/1')).json()).toMatchObject({ name });
  });

  it('accepts the edges: a 200-character name (emoji count once) and categoryId 2^53−1', async () => {
    const { post } = makeService();
    expect((await post({ name: 'x'.repeat(200), categoryId: Number.MAX_SAFE_INTEGER })).status).toBe(201);
    expect((await post({ name: '🐈'.repeat(200), categoryId: 1 })).status).toBe(201);
    expect((await post('{"name":"Big","categoryId":9007199254740991}')).status).toBe(201);
  });

  it('accepts a charset parameter on the media type', async () => {
    const { post } = makeService();
    const response = await post({ name: 'Rex', categoryId: 1 }, { headers: { 'content-type': 'Application/JSON; charset=utf-8' } });
    expect(response.status).toBe(201);
  });

  const invalid: Array<[string, unknown, string]> = [
    ['a missing name', { categoryId: 1 }, 'name'],
    ['a missing categoryId', { name: 'Rex' }, 'categoryId'],
    ['an empty name', { name: '', categoryId: 1 }, 'name'],
    ['a blank name', { name: ' \t\n ', categoryId: 1 }, 'name'],
    ['a name over 200 characters', { name: 'x'.repeat(201), categoryId: 1 }, 'name'],
    ['a name that is not a string', { name: 42, categoryId: 1 }, 'name'],
    ['a string categoryId', { name: 'Rex', categoryId: '1' }, 'categoryId'],
    ['a fractional categoryId', { name: 'Rex', categoryId: 1.5 }, 'categoryId'],
    ['a zero categoryId', { name: 'Rex', categoryId: 0 }, 'categoryId'],
    ['a negative categoryId', { name: 'Rex', categoryId: -3 }, 'categoryId'],
    ['a categoryId beyond 2^53−1', { name: 'Rex', categoryId: 2 ** 53 }, 'categoryId'],
    ['an unknown status', { name: 'Rex', categoryId: 1, status: 'lost' }, 'status'],
    ['a status in the wrong case', { name: 'Rex', categoryId: 1, status: 'Sold' }, 'status'],
    ['a null status', { name: 'Rex', categoryId: 1, status: null }, 'status'],
    ['a typo of a field', { name: 'Rex', categoryId: 1, stauts: 'sold' }, 'stauts'],
    ['an id', { id: 5, name: 'Rex', categoryId: 1 }, 'id'],
  ];
  it.each(invalid)('refuses %s with 400 validation_failed naming the field, and stores nothing', async (_case, body, path) => {
    const { post, listAll } = makeService();
    const response = await post(body);
    expect(response.status).toBe(400);
    const error = await errorOf(response);
    expect(error.code).toBe('validation_failed');
    expect(error.details?.map((detail) => detail.path)).toContain(path);
    expect(error.message).toContain(path);
    expect(await listAll()).toEqual([]);
  });

  it.each([
    ['__proto__', '{"name":"Rex","categoryId":1,"__proto__":{"status":"sold"}}'],
    ['constructor', '{"name":"Rex","categoryId":1,"constructor":{"prototype":{}}}'],
    ['prototype', '{"name":"Rex","categoryId":1,"prototype":1}'],
  ])('refuses a body with a %s key, naming it', async (key, body) => {
    const { post, listAll } = makeService();
    const response = await post(body);
    const error = await errorOf(response);
    expect(response.status).toBe(400);
    expect(error.details).toContainEqual(expect.objectContaining({ path: key }));
    expect(await listAll()).toEqual([]);
    expect(({} as Record<string, unknown>).status).toBeUndefined();
  });

  it.each(['12345678901234567890', '9007199254740993', '1.0000000000000001', '1e400'])(
    'never rounds the JSON number %s onto a categoryId',
    async (literal) => {
      const { post, listAll } = makeService();
      const response = await post(`{"name":"Rex","categoryId":${literal}}`);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).details).toContainEqual(expect.objectContaining({ path: 'categoryId' }));
      expect(await listAll()).toEqual([]);
    },
  );

  it('says a missing field is required', async () => {
    const { post } = makeService();
    const error = await errorOf(await post({}));
    expect(error.details).toEqual([
      { path: 'name', message: 'is required' },
      { path: 'categoryId', message: 'is required' },
    ]);
    expect(error.message).toBe('The animal is not valid: name is required; categoryId is required.');
  });

  it('reports every problem of a body, one detail each', async () => {
    const { post } = makeService();
    const error = await errorOf(await post({ name: '', categoryId: 0, status: 'x', extra: 1 }));
    expect(error.details?.map((detail) => detail.path).sort()).toEqual(['categoryId', 'extra', 'name', 'status']);
  });

  it.each([
    ['malformed JSON', '{"name": "Rex",'],
    ['an empty body', ''],
    ['white space only', '  \n '],
    ['two JSON values', '{"name":"Rex","categoryId":1} {}'],
    ['duplicate keys', '{"name":"Rex","categoryId":1,"name":"Tom"}'],
    ['single quotes', "{'name':'Rex','categoryId':1}"],
  ])('answers %s with 400 invalid_json', async (_case, body) => {
    const { post, listAll } = makeService();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('invalid_json');
    expect(await listAll()).toEqual([]);
  });

  it('answers bytes that are not UTF-8 with 400 invalid_json', async () => {
    const { post } = makeService();
    const response = await post(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    expect((await errorOf(response)).code).toBe('invalid_json');
  });

  it('answers deeply nested JSON with 400, not a crash', async () => {
    const { post } = makeService();
    const response = await post(`${'['.repeat(30_000)}${']'.repeat(30_000)}`);
    expect(response.status).toBe(400);
    expect(['invalid_json', 'validation_failed']).toContain((await errorOf(response)).code);
  });

  it.each([
    ['an array', '[{"name":"Rex","categoryId":1}]'],
    ['a string', '"Rex"'],
    ['null', 'null'],
    ['a number', '42'],
  ])('refuses a JSON body that is %s with 400 validation_failed', async (_case, body) => {
    const { post, listAll } = makeService();
    const response = await post(body);
    expect(response.status).toBe(400);
    expect((await errorOf(response)).code).toBe('validation_failed');
    expect(await listAll()).toEqual([]);
  });

  it.each([['text/plain'], ['application/x-www-form-urlencoded'], ['application/jsonx'], [null]])(
    'refuses Content-Type %s with 415',
    async (contentType) => {
      const { call, listAll } = makeService();
      const headers: Record<string, string> = contentType === null ? {} : { 'content-type': contentType };
      const response = await call('/v1/pets', { method: 'POST', headers, body: new TextEncoder().encode('{"name":"Rex","categoryId":1}') });
      expect(response.status).toBe(415);
      expect((await errorOf(response)).code).toBe('unsupported_media_type');
      expect(await listAll()).toEqual([]);
    },
  );

  it('refuses a body over 64 KiB with 413, also when it is streamed without Content-Length', async () => {
    const { call, listAll } = makeService();
    const big = JSON.stringify({ name: 'Rex', categoryId: 1, pad: 'x'.repeat(70_000) });
    const declared = await call('/v1/pets', { method: 'POST', headers: { 'content-type': 'application/json' }, body: big });
    expect(declared.status).toBe(413);
    expect((await errorOf(declared)).code).toBe('payload_too_large');

    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(16 * 1024).fill(0x20));
        if (pulled > 1000) controller.close();
      },
    });
    const streamed = await call('/v1/pets', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: endless,
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    // It stopped reading soon after 64 KiB instead of draining the whole stream.
    expect(pulled).toBeLessThan(10);
    expect(await listAll()).toEqual([]);
  });

  it('refuses a Content-Length over 64 KiB before reading the body', async () => {
    const { service } = makeService();
    const request = new Request('http://localhost/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer test-key-number-1', 'content-type': 'application/json', 'content-length': '1000000' },
      body: '{}',
    });
    expect((await service(request)).status).toBe(413);
  });

  it('refuses a body larger than 64 KiB even when Content-Length claims less', async () => {
    const { service, listAll } = makeService();
    const request = new Request('http://localhost/v1/pets', {
      method: 'POST',
      headers: { authorization: 'Bearer test-key-number-1', 'content-type': 'application/json', 'content-length': '30' },
      body: JSON.stringify({ name: 'Rex', categoryId: 1, pad: 'x'.repeat(70_000) }),
    });
    expect((await service(request)).status).toBe(413);
    expect(await listAll()).toEqual([]);
  });

  it('quotes only a short prefix of what was sent in a message', async () => {
    const { post } = makeService();
    const longKey = 'k'.repeat(5000);
    const error = await errorOf(await post({ name: 'Rex', categoryId: 1, [longKey]: 1 }));
    expect(error.message.length).toBeLessThan(400);
    expect(JSON.stringify(error).length).toBeLessThan(800);
  });
});
