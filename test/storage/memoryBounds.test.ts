import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createPetService } from '../../core/createPetService.js';
import type { IdempotencyKey } from '../../core/PetStorage.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;
const keyAt = (key: string, createdAt: number, lifetime = 1_000): IdempotencyKey => ({
  scope: 'a1b2c3',
  key,
  fingerprint: 'payload',
  createdAt,
  expiresAt: createdAt + lifetime,
});

describe('memory storage: expired keys leave on a timer, a bounded number per tick', () => {
  beforeEach(() => {
    vi.useFakeTimers({ now: Date.parse('2026-11-25T00:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('Should free the room of expired keys once they expire, at most `atMost` per tick, with no create needed', async () => {
    // 5 keyed creates fill a store of 10 (an animal and a key each).
    const storage = createMemoryStorage([], { limit: 10, keySweep: { everyMilliseconds: 100, atMost: 3 } });
    for (let count = 0; count < 5; count++) await storage.createIdempotent(rex, keyAt(`k${count}`, Date.now()));
    await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    // Not before they expire.
    await vi.advanceTimersByTimeAsync(900);
    await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    // The first tick at or after expiry forgets 3 of the 5, not all.
    await vi.advanceTimersByTimeAsync(100);
    for (let count = 0; count < 3; count++) await storage.create(rex);
    await expect(storage.create(rex)).rejects.toMatchObject({ code: 'storage_unavailable' });
    await vi.advanceTimersByTimeAsync(100);
    await storage.create(rex);
    await storage.close();
  });

  it('Should sweep by the time the keys carry (the service clock), not only the machine clock', async () => {
    const storage = createMemoryStorage([], { limit: 2, keySweep: { everyMilliseconds: 100, atMost: 10 } });
    // The service's clock is a year behind this machine's: the key is live by it.
    const serviceNow = Date.now() - 365 * 86_400_000;
    await storage.createIdempotent(rex, keyAt('k', serviceNow, 5_000));
    await vi.advanceTimersByTimeAsync(1_000);
    expect((await storage.createIdempotent(rex, keyAt('k', serviceNow + 1_000, 5_000))).replayed).toBe(true);
    await vi.advanceTimersByTimeAsync(4_000);
    // Expired and swept: the store has room for one plain create again.
    await storage.create(rex);
    await storage.close();
  });

  it('Should run its timer only while it holds keys, and stop it on close', async () => {
    const before = vi.getTimerCount();
    const storage = createMemoryStorage([], { keySweep: { everyMilliseconds: 100, atMost: 10 } });
    await storage.create(rex);
    expect(vi.getTimerCount()).toBe(before);
    await storage.createIdempotent(rex, keyAt('k', Date.now(), 1_000));
    expect(vi.getTimerCount()).toBe(before + 1);
    // Once the last key has left, the timer ends until the next key.
    await vi.advanceTimersByTimeAsync(1_000);
    expect(vi.getTimerCount()).toBe(before);
    await storage.createIdempotent(rex, keyAt('k2', Date.now(), 1_000));
    expect(vi.getTimerCount()).toBe(before + 1);
    await storage.close();
    expect(vi.getTimerCount()).toBe(before);
  });
});

describe('memory storage: a ceiling instead of a crash', () => {
  const request = (path: string, init: RequestInit = {}) =>
    new Request(`http://localhost/v1${path}`, {
      ...init,
      headers: { authorization: 'Bearer k', 'content-type': 'application/json', ...init.headers },
    });
  const post = (key?: string) =>
    request('/pets', { method: 'POST', body: JSON.stringify(rex), headers: key === undefined ? {} : { 'idempotency-key': `"${key}"` } });

  it('Should answer 503 storage_unavailable saying the store is full, with Retry-After, store nothing, and go on serving', async () => {
    const storage = createMemoryStorage([], { limit: 3 });
    const logged: string[] = [];
    const logger = { error: (message: string) => logged.push(message) };
    const service = createPetService({ storage, keys: ['k'], minimumKeyLength: 1, logger });
    expect((await service(post('first'))).status).toBe(201);
    expect((await service(post())).status).toBe(201);
    const refused = await service(post());
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toMatch(/^\d+$/);
    const body = await refused.json();
    expect(body).toMatchObject({ code: 'storage_unavailable', status: 503 });
    expect(body.message).toMatch(/store is full/);
    // A keyed create is refused too.
    expect((await service(post('second'))).status).toBe(503);
    // Nothing was stored, reads go on, and a retry of a stored key is still answered.
    const list = await (await service(request('/pets'))).json();
    expect(list.map((pet: { id: number }) => pet.id)).toEqual([1, 2]);
    expect((await service(request('/pets/2'))).status).toBe(200);
    expect((await service(post('first'))).status).toBe(201);
    // The operator is told once, not once per refused create.
    expect(logged).toEqual([expect.stringMatching(/store is full/)]);
    await storage.close();
  });

  it('Should refuse a limit that is not a whole number from 1 to 16,000,000', () => {
    expect(() => createMemoryStorage([], { limit: 0 })).toThrow(/whole number from 1 to 16000000/);
    expect(() => createMemoryStorage([], { limit: 20_000_000 })).toThrow(/whole number from 1 to 16000000/);
  });
});

describe('memory storage: the ceiling holds for animals that arrive by sync', () => {
  const pushed = (first: number, count: number) =>
    Array.from({ length: count }, (_, offset) => ({ id: first + offset, name: `Kiosk ${offset}`, categoryId: 2, status: 'sold' as const }));

  it('Should refuse a push past the limit whole, storing nothing, and take one that fits', async () => {
    const hub = createMemoryStorage([], { limit: 3 });
    const { first } = await hub.sync!.lease('ab12', 10);
    await expect(hub.sync!.store('ab12', pushed(first, 4))).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await hub.list({ after: 0, limit: 10 })).toEqual([]);
    expect(await hub.sync!.store('ab12', pushed(first, 3))).toEqual({ stored: 3, present: 0 });
    await hub.close();
  });

  it('Should refuse a pull past the limit whole, keeping its checkpoint, so the kiosk pulls the same page again later', async () => {
    const kiosk = createMemoryStorage([], { limit: 2 });
    await kiosk.sync!.join('http://hub.test/v1');
    await expect(kiosk.sync!.insertPulled(pushed(1, 3), 3)).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect(await kiosk.list({ after: 0, limit: 10 })).toEqual([]);
    expect((await kiosk.sync!.kiosk())?.checkpoint).toBe(0);
    expect(await kiosk.sync!.insertPulled(pushed(1, 2), 2)).toBe(2);
    await kiosk.close();
  });
});
