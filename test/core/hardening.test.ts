/** @module What the core does against hostile or unlucky input: one-time headers, small errors, clean names. */
import { describe, expect, it } from 'vitest';
import { AnimalStoreError, createPetService } from '../../core/index.js';
import type { PetStorage } from '../../core/PetStorage.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, KEY, makeService } from './helpers.js';

/** A storage whose writes fail (with the cause) while `failing.now` is true, and whose health says so. */
const failingStorage = () => {
  const memory = createMemoryStorage();
  const failing = { now: true };
  const cause = Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
  const refuse = () =>
    new AnimalStoreError('storage_unavailable', 'The animal could not be saved to disk, so it was not stored.', { cause });
  const storage: PetStorage = {
    ...memory,
    async create(pet) {
      if (failing.now) throw refuse();
      return memory.create(pet);
    },
    async createIdempotent(pet, key) {
      if (failing.now) throw refuse();
      return memory.createIdempotent(pet, key);
    },
    async checkHealth() {
      return failing.now ? { ok: false, reason: 'the data file cannot be written: no space left on device (ENOSPC)' } : { ok: true };
    },
  };
  return { storage, failing };
};

describe('headers every answer carries', () => {
  it('says X-Content-Type-Options: nosniff on every answer, success or error, public or not', async () => {
    const { call, post } = makeService({ cors: { origins: ['https://kiosk.example'] } });
    const answers = [
      await post({ name: 'Rex', categoryId: 1 }),
      await call('/v1/pets'),
      await call('/v1/pets/1'),
      await call('/v1/pets', { key: null }),
      await call('/v1/nothing'),
      await call('/v1/pets', { method: 'DELETE' }),
      await call('/v1/openapi.json', { key: null }),
      await call('/healthz', { key: null }),
      await call('/v1/docs', { key: null }),
      await call('/v1/pets', { method: 'HEAD' }),
      await call('/v1/pets', {
        method: 'OPTIONS',
        key: null,
        headers: { origin: 'https://kiosk.example', 'access-control-request-method': 'POST' },
      }),
    ];
    for (const response of answers) expect(response.headers.get('x-content-type-options'), `${response.status}`).toBe('nosniff');
  });

  it('marks successful answers private, no-cache and errors no-store', async () => {
    const { call, post } = makeService();
    expect((await post({ name: 'Rex', categoryId: 1 })).headers.get('cache-control')).toBe('private, no-cache');
    expect((await call('/v1/pets')).headers.get('cache-control')).toBe('private, no-cache');
    expect((await call('/v1/pets/1')).headers.get('cache-control')).toBe('private, no-cache');
    for (const error of [
      await call('/v1/pets/9'),
      await call('/v1/pets', { key: null }),
      await call('/v1/pets?limit=0'),
      await post('{'),
    ]) {
      expect(error.headers.get('cache-control'), `${error.status}`).toBe('no-store');
    }
  });

  it('says Retry-After on every 503, and reports a failing storage once with its cause', async () => {
    const { storage, failing } = failingStorage();
    const messages: string[] = [];
    const { post, call, warnings } = makeService({
      storage,
      logger: { warn: (line) => warnings.push(line), error: (line) => messages.push(line) },
    });
    for (let attempt = 0; attempt < 3; attempt++) {
      const refused = await post({ name: 'Rex', categoryId: 1 });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
      expect((await errorOf(refused)).code).toBe('storage_unavailable');
    }
    const health = await call('/healthz', { key: null });
    expect(health.status).toBe(503);
    expect(health.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await errorOf(health)).toMatchObject({ code: 'storage_unavailable', message: expect.stringMatching(/no space left on device/) });
    expect(messages).toEqual([expect.stringMatching(/^storage failing, answering 503 until it recovers: ENOSPC: no space left on device/)]);

    failing.now = false;
    expect((await call('/healthz', { key: null })).status).toBe(200);
    expect((await post({ name: 'Rex', categoryId: 1 })).status).toBe(201);
    expect(warnings).toContain('storage works again');
  });
});

describe('hostile requests', () => {
  it('refuses two Authorization headers with 400 naming the header, before looking at either key', async () => {
    const { call } = makeService();
    const headers = new Headers();
    headers.append('authorization', `Bearer ${KEY}`);
    headers.append('authorization', 'Bearer someone-elses-key-0000');
    const response = await call('/v1/pets', { key: null, headers });
    expect(response.status).toBe(400);
    expect(await errorOf(response)).toMatchObject({
      code: 'validation_failed',
      details: [{ path: 'Authorization', message: 'must be given once' }],
    });
  });

  it('refuses an encoded body with 415 and stores nothing, but takes identity', async () => {
    const { post, listAll } = makeService();
    const gzip = await post({ name: 'Rex', categoryId: 1 }, { headers: { 'content-encoding': 'gzip' } });
    expect(gzip.status).toBe(415);
    expect((await errorOf(gzip)).code).toBe('unsupported_media_type');
    expect(await listAll()).toEqual([]);
    expect((await post({ name: 'Rex', categoryId: 1 }, { headers: { 'content-encoding': 'identity' } })).status).toBe(201);
  });

  it('answers a 64 KiB body of unknown keys with an error no larger than a page of animals', async () => {
    const { post } = makeService();
    const body: Record<string, number> = { name: 1, categoryId: 1 };
    for (let index = 0, size = 30; size < 64 * 1024 - 64; index++) {
      body[`k${index}`] = 1;
      size += `"k${index}":1,`.length;
    }
    const response = await post(body);
    expect(response.status).toBe(400);
    const text = await response.clone().text();
    expect(text.length).toBeLessThan(8 * 1024);
    const error = await errorOf(response);
    expect(error.details).toHaveLength(20);
    expect(error.details?.at(-1)?.message).toMatch(/^and \d+ more problems like these$/);
  });
});

describe('names', () => {
  const refusals: Array<[string, string, RegExp]> = [
    ['a lone surrogate', 'Rex\uD800', /well-formed Unicode/],
    ['a line break', 'Rex\nMax', /control characters/],
    ['a tab', 'Rex\tMax', /control characters/],
    ['a C1 control character', 'Rex\u0085', /control characters/],
    ['a right-to-left override', 'Rex\u202Egpj.exe', /bidirectional/],
    ['a bidi isolate', '\u2066Rex\u2069', /bidirectional/],
    ['only zero-width characters', '\u200B\u200D\uFEFF', /visible character/],
    ['only white space', ' \u00A0 ', /only white space/],
  ];
  for (const [what, name, message] of refusals) {
    it(`refuses a name with ${what}, naming the field, and stores nothing`, async () => {
      const { post, listAll } = makeService();
      const response = await post({ name, categoryId: 1 });
      expect(response.status).toBe(400);
      const error = await errorOf(response);
      expect(error.details).toEqual([{ path: 'name', message: expect.stringMatching(message) }]);
      expect(await listAll()).toEqual([]);
    });
  }

  it('takes names in any script, with emoji, accents and joiners', async () => {
    const { post } = makeService();
    for (const name of ['Zoë', '🐕', 'Ñandú del Río', '小白', 'مشمش', '👩‍⚕️ Vet', 'Rex\u200B']) {
      expect((await post({ name, categoryId: 1 })).status, name).toBe(201);
    }
  });
});

describe('API keys', () => {
  it('refuses a key shorter than 16 characters at start, saying how to make one', () => {
    expect(() => createPetService({ storage: createMemoryStorage(), keys: ['long-enough-key-0001', 'short'] })).toThrow(
      /API key #2 has 5 characters; keys must have at least 16.*openssl rand/,
    );
  });

  it('takes shorter keys where the embedder lowers the minimum (tests)', async () => {
    const service = createPetService({ storage: createMemoryStorage(), keys: ['k'], minimumKeyLength: 1 });
    expect((await service(new Request('http://localhost/v1/pets', { headers: { authorization: 'Bearer k' } }))).status).toBe(200);
  });
});

describe('CORS', () => {
  it('answers * with *, never echoing the origin, and never null', async () => {
    const { call } = makeService({ cors: { origins: ['*'] } });
    for (const origin of ['https://anywhere.example', 'null']) {
      const response = await call('/v1/pets', { headers: { origin } });
      expect(response.headers.get('access-control-allow-origin')).toBe('*');
    }
  });

  it('names Origin in Vary on every answer while CORS is on, allowed origin or not', async () => {
    const { call } = makeService({ cors: { origins: ['https://kiosk.example'] } });
    for (const headers of [{ origin: 'https://kiosk.example' }, { origin: 'https://elsewhere.example' }, {}] as Record<string, string>[]) {
      for (const response of [await call('/v1/pets', { headers }), await call('/v1/pets', { headers, key: null })]) {
        expect(response.headers.get('vary')).toBe('Origin');
      }
    }
    const { call: plain } = makeService();
    expect((await plain('/v1/pets', { headers: { origin: 'https://kiosk.example' } })).headers.get('vary')).toBeNull();
  });

  it('refuses to allow the origin null', () => {
    expect(() => makeService({ cors: { origins: ['null'] } })).toThrow(/null/);
  });
});
