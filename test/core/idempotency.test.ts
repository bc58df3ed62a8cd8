/** @module Idempotency-Key on POST /pets (draft-ietf-httpapi-idempotency-key-header). */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { PetStorage } from '../../core/PetStorage.js';
import type { NewPet } from '../../core/schemas/NewPet.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { errorOf, makeService, OTHER_KEY } from './helpers.js';

const rex = { name: 'Rex', categoryId: 3 };
const keyed = (key: string) => ({ headers: { 'idempotency-key': key } });

/** Everything a client sees of an answer: status, the headers that matter, the exact body bytes. */
const seen = async (response: Response) => ({
  status: response.status,
  location: response.headers.get('location'),
  body: await response.text(),
});

describe('Idempotency-Key', () => {
  it('replays the first 201 exactly (same id, body bytes and Location), says it is a replay, and stores one animal', async () => {
    const { post, listAll } = makeService();
    const first = await post(rex, keyed('"order-1"'));
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const firstSeen = await seen(first);
    const retry = await post(rex, keyed('"order-1"'));
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await seen(retry)).toEqual(firstSeen);
    expect(firstSeen).toMatchObject({ status: 201, location: '/v1/pets/1' });
    expect(await listAll()).toHaveLength(1);
  });

  it('treats the same animal written differently as the same payload', async () => {
    const { post, listAll } = makeService();
    await post('{"name":"Rex","categoryId":3}', keyed('"k-1"'));
    const retry = await post('{ "categoryId": 3, "name": "Rex", "status": "available" }', keyed('"k-1"'));
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(await listAll()).toHaveLength(1);
  });

  it('answers 422 idempotency_key_reused for the same key with another payload, storing nothing', async () => {
    const { post, listAll } = makeService();
    await post(rex, keyed('"k-1"'));
    const reused = await post({ name: 'Tom', categoryId: 3 }, keyed('"k-1"'));
    expect(reused.status).toBe(422);
    expect((await errorOf(reused)).code).toBe('idempotency_key_reused');
    expect(await listAll()).toHaveLength(1);
  });

  it('answers 409 idempotency_conflict while the first request with the key is in flight, then replays', async () => {
    const memory = createMemoryStorage();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const reached = new Promise<void>((resolve) => (arrived = resolve));
    const slow: PetStorage = {
      ...memory,
      async createIdempotent(pet, key) {
        arrived();
        await held;
        return memory.createIdempotent(pet, key);
      },
    };
    const { post, listAll } = makeService({ storage: slow });
    const first = post(rex, keyed('"slow"'));
    await reached;
    const conflict = await post(rex, keyed('"slow"'));
    expect(conflict.status).toBe(409);
    expect(conflict.headers.get('retry-after')).toBe('1');
    expect((await errorOf(conflict)).code).toBe('idempotency_conflict');
    release();
    expect((await first).status).toBe(201);
    expect((await post(rex, keyed('"slow"'))).headers.get('idempotent-replayed')).toBe('true');
    expect(await listAll()).toHaveLength(1);
  });

  it('replays a key an earlier version stored with its 32-character fingerprint, and still refuses another payload', async () => {
    // A storage that keeps each key's fingerprint as an earlier version made it (24 bytes of
    // the SHA-256, not 8) and gives it back exactly, as PostgreSQL does.
    const memory = createMemoryStorage();
    const olderFingerprint = ({ name, categoryId, status }: NewPet) =>
      createHash('sha256')
        .update(JSON.stringify([name, categoryId, status]))
        .digest()
        .subarray(0, 24)
        .toString('base64url');
    const olderByKey = new Map<string, string>();
    const older: PetStorage = {
      ...memory,
      async createIdempotent(pet, key) {
        if (!olderByKey.has(key.key)) olderByKey.set(key.key, olderFingerprint(pet));
        const result = await memory.createIdempotent(pet, key);
        return result.replayed ? { ...result, stored: { ...result.stored, fingerprint: olderByKey.get(key.key)! } } : result;
      },
    };
    const { post, listAll } = makeService({ storage: older });
    expect((await post(rex, keyed('"before-upgrade"'))).status).toBe(201);
    expect((await post(rex, keyed('"before-upgrade"'))).headers.get('idempotent-replayed')).toBe('true');
    const reused = await post({ name: 'Tom', categoryId: 3 }, keyed('"before-upgrade"'));
    expect(reused.status).toBe(422);
    expect((await errorOf(reused)).code).toBe('idempotency_key_reused');
    expect(await listAll()).toHaveLength(1);
  });

  it('keeps keys apart per API key', async () => {
    const { post, listAll } = makeService();
    await post(rex, keyed('"shared-name"'));
    const other = await post(rex, { key: OTHER_KEY, ...keyed('"shared-name"') });
    expect(other.status).toBe(201);
    expect(other.headers.get('idempotent-replayed')).toBeNull();
    expect(await listAll()).toHaveLength(2);
  });

  it('takes a bare key as the same key as its quoted form', async () => {
    const { post, listAll } = makeService();
    await post(rex, keyed('8e03978e-40d5-43e8-bc93-6894a57f9324'));
    expect((await post(rex, keyed('"8e03978e-40d5-43e8-bc93-6894a57f9324"'))).headers.get('idempotent-replayed')).toBe('true');
    expect(await listAll()).toHaveLength(1);
  });

  for (const [what, value] of [
    ['an unterminated string', '"abc'],
    ['two keys', '"a", "b"'],
    ['a key of 256 characters', `"${'x'.repeat(256)}"`],
    ['an empty string', '""'],
    ['a bad escape', '"a\\b"'],
    ['a bare key with a space', 'a b'],
  ] as const) {
    it(`refuses ${what} with 400 naming the header, storing nothing`, async () => {
      const { post, listAll } = makeService();
      const response = await post(rex, keyed(value));
      expect(response.status).toBe(400);
      expect(await errorOf(response)).toMatchObject({ code: 'validation_failed', details: [{ path: 'Idempotency-Key' }] });
      expect(await listAll()).toEqual([]);
    });
  }

  it('takes a key of 255 characters with escapes', async () => {
    const { post } = makeService();
    expect((await post(rex, keyed(`"${'x'.repeat(253)}\\"\\\\"`))).status).toBe(201);
  });

  it('requires a key on every create when told to', async () => {
    const { post, listAll } = makeService({ idempotency: { required: true } });
    const missing = await post(rex);
    expect(missing.status).toBe(400);
    expect(await errorOf(missing)).toMatchObject({ details: [{ path: 'Idempotency-Key', message: 'is required' }] });
    expect((await post(rex, keyed('"k"'))).status).toBe(201);
    expect(await listAll()).toHaveLength(1);
  });

  it('forgets a key after its lifetime (a day by default): the same key then creates anew', async () => {
    let now = Date.parse('2026-11-21T12:00:00Z');
    const { post, listAll } = makeService({ now: () => now });
    await post(rex, keyed('"k"'));
    now += 24 * 60 * 60 * 1000 - 1;
    expect((await post(rex, keyed('"k"'))).headers.get('idempotent-replayed')).toBe('true');
    now += 1;
    expect((await post(rex, keyed('"k"'))).headers.get('idempotent-replayed')).toBeNull();
    expect(await listAll()).toHaveLength(2);
  });

  it('keeps keys as long as configured', async () => {
    let now = Date.parse('2026-11-21T12:00:00Z');
    const { post, listAll } = makeService({ now: () => now, idempotency: { keyLifetimeSeconds: 60 } });
    await post(rex, keyed('"k"'));
    now += 60_000;
    await post(rex, keyed('"k"'));
    expect(await listAll()).toHaveLength(2);
  });

  it('does not store a key when the create failed, so a retry can succeed', async () => {
    const { post, listAll } = makeService();
    expect((await post({ name: '', categoryId: 3 }, keyed('"k"'))).status).toBe(400);
    expect((await post(rex, keyed('"k"'))).status).toBe(201);
    expect(await listAll()).toHaveLength(1);
  });

  it('gives the in-process catalogue the same safety', async () => {
    const { service, listAll } = makeService();
    const first = await service.catalogue.createPet(rex, { idempotencyKey: 'job-7' });
    expect(await service.catalogue.createPet(rex, { idempotencyKey: 'job-7' })).toEqual(first);
    await expect(service.catalogue.createPet({ name: 'Tom', categoryId: 3 }, { idempotencyKey: 'job-7' })).rejects.toMatchObject({
      code: 'idempotency_key_reused',
      status: 422,
    });
    expect(await listAll()).toHaveLength(1);
  });
});
