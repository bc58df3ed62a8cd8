/** @module The memory store's ceiling through the real command line: a 503 saying the store is full, never a crash. */
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverProcesses, startCli } from '../support/startCli.js';

afterEach(killLeftoverProcesses);

const KEY = 'ceiling-test-key-0001';
const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

describe('animal-store --memory --memory-limit', () => {
  it('Should refuse creates past the limit with 503 storage_unavailable and Retry-After, store nothing, and go on serving', async () => {
    const cli = await startCli(['serve', '--port', '0', '--memory', '--memory-limit', '3', '--api-key', KEY, '--quiet'], {
      env: { ANIMAL_STORE_MEMORY_LIMIT: '' },
    });
    const create = (idempotencyKey?: string) =>
      fetch(`${cli.url}/pets`, {
        method: 'POST',
        headers: idempotencyKey === undefined ? headers : { ...headers, 'idempotency-key': `"${idempotencyKey}"` },
        body: JSON.stringify({ name: 'Rex', categoryId: 3 }),
      });
    expect((await create('first')).status).toBe(201);
    expect((await create()).status).toBe(201);
    for (const refused of [await create(), await create('second')]) {
      expect(refused.status).toBe(503);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      const body = await refused.json();
      expect(body).toMatchObject({ code: 'storage_unavailable', status: 503 });
      expect(body.message).toMatch(/The store is full/);
    }
    // Nothing more was stored; reads, health and a replayed key are answered as before.
    const list = await fetch(`${cli.url}/pets`, { headers });
    expect((await list.json()).map((pet: { id: number }) => pet.id)).toEqual([1, 2]);
    expect((await fetch(new URL('/healthz', cli.url))).status).toBe(200);
    const replay = await create('first');
    expect(replay.status).toBe(201);
    expect((await replay.json()).id).toBe(1);
    expect(cli.stderr()).toMatch(/The store is full/);
  });
});
