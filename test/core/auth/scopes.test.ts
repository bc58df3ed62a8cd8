import { describe, expect, it } from 'vitest';
import type { AccessLogEntry } from '../../../core/index.js';
import { errorOf, makeService } from '../helpers.js';

const READER = 'reader-key-0000001';
const CREATOR = 'creator-key-000001';
const KIOSK = 'kiosk-key-00000001';
const ADMIN = 'admin-key-00000001';

const scoped = () => {
  const access: AccessLogEntry[] = [];
  const made = makeService({
    keys: [
      { key: READER, scopes: ['read'], name: 'lobby-screen' },
      { key: CREATOR, scopes: ['create'] },
      { key: KIOSK, scopes: ['sync'], name: 'kiosk-1' },
      ADMIN,
    ],
    logger: { access: (entry) => access.push(entry) },
  });
  return { ...made, access };
};

const newPet = { name: 'Rex', categoryId: 1 };

describe('key scopes', () => {
  it('Should let a read key list and get but refuse its create with 403 forbidden naming the scope create', async () => {
    const { call, post } = scoped();
    expect((await call('/v1/pets', { key: READER })).status).toBe(200);
    const refused = await post(newPet, { key: READER });
    expect(refused.status).toBe(403);
    const body = await errorOf(refused);
    expect(body.code).toBe('forbidden');
    expect(body.message).toMatch(/lacks the scope create/);
    expect((await call('/v1/pets', { key: ADMIN }).then((answer) => answer.json())) as unknown[]).toEqual([]);
  });

  it('Should let a create key create but not list, and a sync key sync but neither list nor create', async () => {
    const { call, post } = scoped();
    expect((await post(newPet, { key: CREATOR })).status).toBe(201);
    expect((await errorOf(await call('/v1/pets', { key: CREATOR }))).message).toMatch(/scope read/);
    expect((await call('/v1/sync/leases', { method: 'POST', key: KIOSK })).status).toBe(201);
    expect((await call('/v1/sync/pull', { key: KIOSK })).status).toBe(200);
    expect((await post(newPet, { key: KIOSK })).status).toBe(403);
    expect((await errorOf(await call('/v1/sync/pull', { key: READER }))).message).toMatch(/scope sync/);
    expect((await call('/v1/sync/leases', { method: 'POST', key: CREATOR })).status).toBe(403);
  });

  it('Should authenticate before the scope check: a wrong key is 401, and an unknown path 404 before any 403', async () => {
    const { call } = scoped();
    expect((await call('/v1/pets', { key: 'not-a-key-at-all-1' })).status).toBe(401);
    expect((await call('/v1/nothing', { key: CREATOR })).status).toBe(404);
    expect((await call('/v1/pets', { method: 'DELETE', key: CREATOR })).status).toBe(405);
  });

  it('Should name the calling key in the access log by its name, or by its fingerprint, never by the key', async () => {
    const { call, post, access } = scoped();
    await call('/v1/pets', { key: READER });
    await post(newPet, { key: CREATOR });
    await call('/v1/pets', { key: null });
    expect(access.map(({ key }) => key)).toEqual(['lobby-screen', expect.stringMatching(/^[0-9a-f]{12}$/), undefined]);
    expect(JSON.stringify(access)).not.toContain(CREATOR);
  });

  it('Should refuse keys the service cannot use: an unknown scope, no scopes, a bad name', () => {
    expect(() => makeService({ keys: [{ key: READER, scopes: ['write' as 'read'] }] })).toThrow(/unknown scope "write"/);
    expect(() => makeService({ keys: [{ key: READER, scopes: [] }] })).toThrow(/empty list of scopes/);
    expect(() => makeService({ keys: [{ key: READER, name: 'has space' }] })).toThrow(/has the name "has space"/);
  });
});

describe('replacing keys', () => {
  it('Should refuse a removed key from then on, accept an added one, and keep the keys in force when the new ones cannot be used', async () => {
    const { call, service } = scoped();
    await service.keys.replace([ADMIN, { key: 'added-key-00000001', scopes: ['read'] }]);
    expect((await call('/v1/pets', { key: READER })).status).toBe(401);
    expect((await call('/v1/pets', { key: 'added-key-00000001' })).status).toBe(200);
    await expect(service.keys.replace(['short'])).rejects.toThrow(/at least 16/);
    expect((await call('/v1/pets', { key: 'added-key-00000001' })).status).toBe(200);
    expect((await service.keys.callers()).map(({ scopes }) => scopes)).toEqual([['read', 'create', 'sync'], ['read']]);
  });
});
