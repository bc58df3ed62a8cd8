import { describe, expect, it } from 'vitest';
import { nodeSha256 } from '../../adapters/node/serve.js';
import { AnimalStoreError } from '../../core/index.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, KEY, makeService, ORIGIN, OTHER_KEY } from './helpers.js';

const expectDeprecationHeaders = (response: Response) => {
  expect(response.headers.get('deprecation')).toBe('@1764547200');
  expect(response.headers.get('sunset')).toBe('Thu, 05 Dec 2030 00:00:00 GMT');
  expect(response.headers.get('link')).toBe(
    '</v1/pets>; rel="successor-version", </v1/docs#deprecation>; rel="deprecation"; type="text/html"',
  );
};

describe('GET /v1/pets/{petId} (deprecated)', () => {
  it('answers the animal with the deprecation headers', async () => {
    const { call, seed } = makeService();
    const [rex] = await seed([{ name: 'Rex', categoryId: 2 }]);
    const response = await call('/v1/pets/1');
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(rex);
    expectDeprecationHeaders(response);
  });

  it.each(['2', '0', '-0', '-1', '000000000000000', '9007199254740993', '9223372036854775807', '-9223372036854775808'])(
    'answers the int64 %s that names no animal with 404 and the deprecation headers',
    async (petId) => {
      const { call, seed } = makeService();
      await seed([{ name: 'Rex', categoryId: 2 }]);
      const response = await call(`/v1/pets/${petId}`);
      expect(response.status).toBe(404);
      expect((await errorOf(response)).code).toBe('not_found');
      expectDeprecationHeaders(response);
    },
  );

  it('reads an id the same however many digits it is written with (short ids skip the int64 arithmetic)', async () => {
    const wide = { id: 999_999_999_999_999, name: 'Wide', categoryId: 1, status: 'sold' as const };
    const { call } = makeService({ storage: createMemoryStorage([wide]) });
    for (const petId of ['999999999999999', '0999999999999999', '00000999999999999999']) {
      expect(await (await call(`/v1/pets/${petId}`)).json(), petId).toEqual(wide);
    }
  });

  it('never rounds an id beyond 2^53 onto another animal', async () => {
    // The largest id JavaScript holds exactly is 2^53 − 1; ids above it would round.
    const edge = { id: Number.MAX_SAFE_INTEGER, name: 'Edge', categoryId: 1, status: 'sold' as const };
    const { call } = makeService({ storage: createMemoryStorage([edge]) });
    expect(await (await call('/v1/pets/9007199254740991')).json()).toEqual(edge);
    for (const petId of ['9007199254740992', '9007199254740993', '18014398509481983']) {
      expect((await call(`/v1/pets/${petId}`)).status, petId).toBe(404);
    }
  });

  it.each(['abc', '1.5', '0x1A', '1e3', '123456789012345678901', '9223372036854775808', '-9223372036854775809', '%31', '+1', '1 ', '-'])(
    'refuses the petId %j with 400 naming petId, with the deprecation headers',
    async (petId) => {
      const { call } = makeService();
      const response = await call(`/v1/pets/${encodeURIComponent(petId)}`);
      expect(response.status).toBe(400);
      expect((await errorOf(response)).details).toEqual([expect.objectContaining({ path: 'petId' })]);
      expectDeprecationHeaders(response);
    },
  );

  it('does not mark answers to unauthenticated callers', async () => {
    const { call } = makeService();
    const response = await call('/v1/pets/1', { key: null });
    expect(response.status).toBe(401);
    expect(response.headers.get('deprecation')).toBeNull();
  });

  it('counts use per key and logs once per key, without the key', async () => {
    const { call, seed, service, warnings } = makeService();
    await seed([{ name: 'Rex', categoryId: 2 }]);
    await call('/v1/pets/1');
    await call('/v1/pets/1');
    await call('/v1/pets/5');
    await call('/v1/pets/1', { key: OTHER_KEY });
    expect(service.deprecatedUses().map(({ keyIndex, calls }) => ({ keyIndex, calls }))).toEqual([
      { keyIndex: 0, calls: 3 },
      { keyIndex: 1, calls: 1 },
    ]);
    expect(warnings).toHaveLength(2);
    expect(warnings.join('\n')).not.toContain('test-key');
    expect(warnings[0]).toMatch(/deprecated/);
  });
});

describe('handle: the service answering at once', () => {
  const request = (path: string, key: string | null = KEY) =>
    new Request(`${ORIGIN}${path}`, key === null ? {} : { headers: { authorization: `Bearer ${key}` } });
  const rex = { id: 1, name: 'Rex', categoryId: 2, status: 'available' as const };

  /** The parts of an answer a client sees. */
  const seen = async (response: Response) => ({
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: await response.text(),
  });

  it('answers getPet from memory without a promise, exactly as the service answers', async () => {
    // Web Crypto, the default hash, always answers later; Node's native one at once.
    const { service } = makeService({ storage: createMemoryStorage([rex]), sha256: nodeSha256 });
    // The bearer check's key digests are ready once the service has answered once.
    await service(request('/v1/pets/1'));
    for (const [path, key] of [
      ['/v1/pets/1', KEY],
      ['/v1/pets/2', KEY],
      ['/v1/pets/x', KEY],
      ['/v1/pets/1', null],
    ] as const) {
      const answered = service.handle(request(path, key));
      expect(answered, path).toBeInstanceOf(Response);
      expect(await seen(answered as Response)).toEqual(await seen(await service(request(path, key))));
    }
  });

  it('answers with a promise, and the same answer, when the storage answers with one', async () => {
    const memory = createMemoryStorage([rex]);
    const { service } = makeService({ storage: { ...memory, get: async (id: number) => memory.get(id) }, sha256: nodeSha256 });
    await service(request('/v1/pets/1'));
    const answered = service.handle(request('/v1/pets/1'));
    expect(answered).toBeInstanceOf(Promise);
    const response = await answered;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(rex);
  });

  it.each([
    [
      'throws',
      () => {
        throw new AnimalStoreError('storage_unavailable', 'The disk is gone.');
      },
    ],
    [
      'rejects',
      async () => {
        throw new AnimalStoreError('storage_unavailable', 'The disk is gone.');
      },
    ],
  ])('turns a storage that %s into a 503 Error answer, never a throw', async (_how, get) => {
    const { service } = makeService({ storage: { ...createMemoryStorage([rex]), get }, sha256: nodeSha256 });
    await service(request('/v1/pets/1'));
    const response = await service.handle(request('/v1/pets/1'));
    expect(response.status).toBe(503);
    expect((await errorOf(response)).code).toBe('storage_unavailable');
    expect(response.headers.get('retry-after')).toBe('1');
  });
});
