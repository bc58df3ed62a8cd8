import { describe, expect, it } from 'vitest';
import { errorOf, KEY, makeService, OTHER_KEY } from './helpers.js';

describe('bearer authentication', () => {
  it('refuses a request without a key with 401, an Error body and a bare Bearer challenge', async () => {
    const { call } = makeService();
    const response = await call('/v1/pets', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store"');
    const body = await errorOf(response);
    expect(body.code).toBe('unauthorized');
    expect(body.message).toMatch(/Authorization: Bearer/);
  });

  it('refuses an unknown key and says the token is invalid (RFC 6750)', async () => {
    const { call } = makeService();
    const response = await call('/v1/pets', { key: 'not-a-key' });
    expect(response.status).toBe(401);
    expect(response.headers.get('www-authenticate')).toBe('Bearer realm="animal-store", error="invalid_token"');
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  it.each([
    ['another scheme', `Basic ${btoa('user:pass')}`],
    ['a scheme without a token', 'Bearer'],
    ['a token with spaces', `Bearer ${KEY} extra`],
    ['an empty header', ''],
    ['a prefix of the key', `Bearer ${KEY.slice(0, -1)}`],
    ['the key with a suffix', `Bearer ${KEY}x`],
  ])('refuses %s', async (_case, authorization) => {
    const { call } = makeService();
    const response = await call('/v1/pets', { key: null, headers: { authorization } });
    expect(response.status).toBe(401);
    expect((await errorOf(response)).code).toBe('unauthorized');
  });

  it('accepts the scheme name in any case (RFC 7235)', async () => {
    const { call } = makeService();
    for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
      const response = await call('/v1/pets', { key: null, headers: { authorization: `${scheme} ${KEY}` } });
      expect(response.status).toBe(200);
    }
  });

  it('accepts every configured key, so keys can be rotated', async () => {
    const { call } = makeService();
    expect((await call('/v1/pets', { key: KEY })).status).toBe(200);
    expect((await call('/v1/pets', { key: OTHER_KEY })).status).toBe(200);
  });

  it('checks the key before anything else, so paths, ids and bodies reveal nothing', async () => {
    const { call, post, listAll } = makeService();
    for (const path of ['/v1/pets/1', '/v1/pets/abc', '/v1/nothing', '/pets', '/v1/pets?limit=0']) {
      const response = await call(path, { key: null });
      expect(response.status, path).toBe(401);
    }
    expect((await call('/v1/pets', { key: null, method: 'DELETE' })).status).toBe(401);
    expect((await post('{not json', { key: 'wrong' })).status).toBe(401);
    expect((await post({ name: 'Rex', categoryId: 1 }, { key: 'wrong' })).status).toBe(401);
    expect(await listAll()).toEqual([]);
  });

  it('never echoes the presented key in the answer', async () => {
    const { call } = makeService();
    const secret = 'a-very-secret-but-wrong-key';
    const response = await call('/v1/pets', { key: secret });
    expect(await response.text()).not.toContain(secret);
    expect([...response.headers.values()].join(' ')).not.toContain(secret);
  });

  it('refuses to start without keys, or with a key that cannot travel as a bearer token', async () => {
    expect(() => makeService({ keys: [] })).toThrow(/at least one API key/);
    expect(() => makeService({ keys: ['has space'] })).toThrow(/API key/);
  });
});
