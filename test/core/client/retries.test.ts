/** @module The client on a flaky network: Idempotency-Keys, retries with backoff, timeouts, aborts, revalidation. */
import { describe, expect, it } from 'vitest';
import { type AnimalStoreClient, createClient } from '../../../core/client.js';
import type { Catalogue } from '../../../core/index.js';
import { makeService } from '../helpers.js';

const KEY = 'test-key-number-1';
const BASE = 'http://store.test/v1';
const fast = { baseDelay: 1, maxDelay: 1_000 };

/** A service in process, reached through a fetch that records every request and can be told to misbehave. */
const flakyService = () => {
  const { service, listAll } = makeService();
  const sent: Request[] = [];
  const answers: number[] = [];
  /** What the next tries do instead of answering normally, in order. */
  const faults: Array<'refuse' | 'reset' | 'closed' | 'lose-answer' | 'hang' | { status: number; retryAfter?: string }> = [];
  const fetch = async (request: Request): Promise<Response> => {
    sent.push(request.clone());
    const fault = faults.shift();
    if (fault === 'refuse') throw new TypeError('fetch failed: connect ECONNREFUSED');
    // As Node's fetch reports a connection the server reset, or closed, before answering.
    if (fault === 'reset')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' }) });
    if (fault === 'closed')
      throw new TypeError('fetch failed', { cause: Object.assign(new Error('other side closed'), { code: 'UND_ERR_SOCKET' }) });
    if (fault === 'hang') return new Promise<Response>(() => {});
    if (typeof fault === 'object') {
      answers.push(fault.status);
      const headers: Record<string, string> = fault.retryAfter === undefined ? {} : { 'retry-after': fault.retryAfter };
      return Response.json({ code: 'storage_unavailable', message: 'x', status: fault.status }, { status: fault.status, headers });
    }
    const response = await service(request);
    answers.push(response.status);
    // The service stored the animal and answered, but the answer never reached the client.
    if (fault === 'lose-answer') throw new TypeError('fetch failed: socket hang up');
    return response;
  };
  return { fetch, sent, answers, faults, listAll };
};

describe('the client on a flaky network', () => {
  it('sends a fresh Idempotency-Key with every create', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    const keys = flaky.sent.map((request) => request.headers.get('idempotency-key'));
    expect(keys[0]).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(keys[1]).not.toBe(keys[0]);
    expect(await flaky.listAll()).toHaveLength(2);
  });

  it('retries a create whose answer was lost with the same key, and the service stores it once', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: fast });
    flaky.faults.push('lose-answer');
    const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
    expect(pet).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    expect(flaky.sent).toHaveLength(2);
    expect(new Set(flaky.sent.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
    expect(await flaky.listAll()).toHaveLength(1);
  });

  it('retries refused connections, 503 and 409 with backoff, honouring Retry-After', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: { attempts: 4, baseDelay: 1 } });
    flaky.faults.push('refuse', { status: 503, retryAfter: '0' }, { status: 409 });
    expect((await client.createPet({ name: 'Rex', categoryId: 1 })).id).toBe(1);
    expect(flaky.sent).toHaveLength(4);
    expect(await flaky.listAll()).toHaveLength(1);
  });

  it('retries a connection reset or closed before any answer like a 503, the create stored once', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: fast });
    flaky.faults.push('reset', 'closed');
    expect((await client.createPet({ name: 'Rex', categoryId: 1 })).id).toBe(1);
    expect(flaky.sent).toHaveLength(3);
    expect(new Set(flaky.sent.map((request) => request.headers.get('idempotency-key'))).size).toBe(1);
    expect(await flaky.listAll()).toHaveLength(1);
  });

  it('names the reason of a connection that failed every try', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: { attempts: 2, baseDelay: 1 } });
    flaky.faults.push('reset', 'closed');
    await expect(client.listPets()).rejects.toMatchObject({
      code: 'network_error',
      status: 0,
      message: `Could not reach ${BASE}/pets: fetch failed (UND_ERR_SOCKET: other side closed).`,
    });
  });

  it('gives up after its tries with the last failure, and does not retry what will not pass', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: { attempts: 3, baseDelay: 1 } });
    flaky.faults.push({ status: 503 }, { status: 503 }, { status: 503 });
    await expect(client.createPet({ name: 'Rex', categoryId: 1 })).rejects.toMatchObject({ code: 'storage_unavailable', status: 503 });
    expect(flaky.sent).toHaveLength(3);

    const before = flaky.sent.length;
    await expect(client.createPet({ name: '', categoryId: 1 })).rejects.toMatchObject({ code: 'validation_failed' });
    expect(flaky.sent.length - before).toBe(1);
  });

  it('does not wait out a Retry-After longer than it may', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: { maxDelay: 100 } });
    flaky.faults.push({ status: 429, retryAfter: '60' });
    await expect(client.listPets()).rejects.toMatchObject({ status: 429 });
    expect(flaky.sent).toHaveLength(1);
  });

  it('abandons a try after its timeout, and reports timeout once the tries run out', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, timeout: 30, retry: { attempts: 2, baseDelay: 1 } });
    flaky.faults.push('hang', 'hang');
    await expect(client.listPets()).rejects.toMatchObject({ code: 'timeout', status: 0 });
    expect(flaky.sent).toHaveLength(2);
    // A call's own timeout: its first try is abandoned, its retry answers.
    const client2 = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, timeout: 60_000, retry: { attempts: 2, baseDelay: 1 } });
    flaky.faults.push('hang');
    const before = flaky.sent.length;
    expect((await client2.listPets({}, { timeout: 30 })).pets).toEqual([]);
    expect(flaky.sent.length - before).toBe(2);
  });

  it('stops at once when the caller aborts, without retrying', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, retry: fast });
    flaky.faults.push('hang');
    const controller = new AbortController();
    const pending = client.createPet({ name: 'Rex', categoryId: 1 }, { signal: controller.signal });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: 'aborted', status: 0 });
    expect(flaky.sent).toHaveLength(1);

    const closed = new AbortController();
    const closedClient = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch, signal: closed.signal });
    closed.abort();
    await expect(closedClient.listPets()).rejects.toMatchObject({ code: 'aborted' });
  });

  it('revalidates a repeated GET with its ETag and reuses the answer on 304', async () => {
    const flaky = flakyService();
    const client = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    const first = await client.listPets({ limit: 5 });
    const second = await client.listPets({ limit: 5 });
    expect(second).toEqual(first);
    expect(flaky.sent.at(-1)?.headers.get('if-none-match')).toMatch(/^"/);
    expect(flaky.answers.slice(-2)).toEqual([200, 304]);
    await client.createPet({ name: 'Tom', categoryId: 1 });
    expect((await client.listPets({ limit: 5 })).pets.map((pet) => pet.name)).toEqual(['Rex', 'Tom']);
    expect(flaky.answers.at(-1)).toBe(200);
  });

  it('has the in-process catalogue’s methods and iterators, with the same names', async () => {
    const flaky = flakyService();
    const client: AnimalStoreClient = createClient({ baseUrl: BASE, apiKey: KEY, fetch: flaky.fetch });
    const catalogue: Catalogue = client;
    for (const name of ['A', 'B', 'C']) await catalogue.createPet({ name, categoryId: 1 });
    const pages: string[][] = [];
    for await (const page of catalogue.pages({ limit: 2 })) pages.push(page.map((pet) => pet.name));
    expect(pages).toEqual([['A', 'B'], ['C']]);
    const names: string[] = [];
    for await (const pet of catalogue.allPets({ limit: 2 })) names.push(pet.name);
    expect(names).toEqual(['A', 'B', 'C']);
    const first = await catalogue.listPets({ limit: 2 });
    expect(first.next).toEqual({ limit: 2, cursor: expect.any(String) });
    expect((await catalogue.listPets(first.next)).pets.map((pet) => pet.name)).toEqual(['C']);
  });
});
