/** @module An Idempotency-Key survives a crash between the write and the answer, with its animal and only it. */
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { API_KEY, readDataFile, startServer, tempDataFile } from '../../support/serverProcess.js';

const PRELOAD = './test/storage/jsonFile/crashAfterWritePreload.ts';

const create = (url: string, key: string, name: string) =>
  fetch(`${url}/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
    body: JSON.stringify({ name, categoryId: 7 }),
  });

describe('the real server killed after a keyed write and before its answer', () => {
  it('Should answer the retry with the same key with the same animal, stored once', async () => {
    const file = tempDataFile();
    const crashNow = `${file}.crash`;
    const first = await startServer(file, { preload: [PRELOAD], env: { ANIMAL_STORE_TEST_CRASH_AFTER_WRITE: crashNow } });
    expect((await create(first.url, 'warm-up', 'Before')).status).toBe(201);

    fs.writeFileSync(crashNow, '');
    // The write reaches the disk, then the server dies before it can answer.
    await expect(create(first.url, 'order-0042', 'Pickles')).rejects.toThrow();
    expect((await first.exited).signal).toBe('SIGKILL');
    fs.rmSync(crashNow);
    const onDisk = readDataFile(file);
    expect(onDisk.pets.map((pet) => pet.name)).toEqual(['Before', 'Pickles']);
    expect(onDisk.idempotencyKeys.map((stored) => [stored.key, stored.petId])).toEqual([
      ['warm-up', 1],
      ['order-0042', 2],
    ]);

    const second = await startServer(file);
    const retry = await create(second.url, 'order-0042', 'Pickles');
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(retry.headers.get('location')).toBe('/v1/pets/2');
    expect(await retry.json()).toEqual({ id: 2, name: 'Pickles', categoryId: 7, status: 'available' });
    const listed = await fetch(`${second.url}/pets`, { headers: { authorization: `Bearer ${API_KEY}` } });
    expect(((await listed.json()) as Array<{ name: string }>).filter((pet) => pet.name === 'Pickles')).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect((await second.exited).code).toBe(0);
  });
});

describe('the real server killed with SIGKILL in a flood of keyed creates', () => {
  it('Should answer every retried key after the restart with the animal it was acknowledged with, and store none twice', {
    timeout: 60_000,
  }, async () => {
    const file = tempDataFile();
    const server = await startServer(file);
    const acknowledged = new Map<string, unknown>();
    const sent: string[] = [];
    let stopped = false;
    // Eight clients, each a new key per create, until the server dies under them.
    const client = async (number: number) => {
      for (let count = 0; !stopped; count++) {
        const key = `flood-${number}-${count}`;
        sent.push(key);
        try {
          const response = await create(server.url, key, `Flood ${number} ${count}`);
          if (response.status === 201) acknowledged.set(key, await response.json());
        } catch {
          return; // the server is gone
        }
      }
    };
    const clients = Promise.all(Array.from({ length: 8 }, (_, number) => client(number)));
    while (acknowledged.size < 200) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
    server.child.kill('SIGKILL');
    await server.exited;
    stopped = true;
    await clients;

    const restarted = await startServer(file);
    // Every key sent, in a retry: an acknowledged one answers its own animal, replayed; an
    // unanswered one either replays (its write was durable) or creates it now, once.
    for (const key of sent) {
      const retry = await create(restarted.url, key, `Flood ${key.slice(6).replace('-', ' ')}`);
      expect(retry.status).toBe(201);
      const body = await retry.json();
      if (acknowledged.has(key)) {
        expect(retry.headers.get('idempotent-replayed')).toBe('true');
        expect(body).toEqual(acknowledged.get(key));
      }
    }
    restarted.child.kill('SIGTERM');
    expect((await restarted.exited).code).toBe(0);
    // After the clean stop the document alone holds every animal and every key.
    const document = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(document.pets).toHaveLength(sent.length);
    expect(new Set(document.pets.map((pet: { name: string }) => pet.name)).size).toBe(sent.length);
    expect(new Set(document.idempotencyKeys.map((stored: { key: string }) => stored.key))).toEqual(new Set(sent));
    expect(fs.existsSync(`${file}.journal`)).toBe(false);
  });

  it('Should answer retries of keys whose texts left memory, while it runs and after a kill -9 in a flood of them', {
    timeout: 120_000,
  }, async () => {
    const file = tempDataFile();
    const server = await startServer(file);
    const acknowledged = new Map<string, { id: number; name: string }>();
    const order: string[] = [];
    let stopped = false;
    const client = async (number: number) => {
      for (let count = 0; !stopped; count++) {
        const key = crypto.randomUUID();
        try {
          const response = await create(server.url, key, `Spilled ${number} ${count}`);
          if (response.status === 201) {
            acknowledged.set(key, await response.json());
            order.push(key);
          }
        } catch {
          return;
        }
      }
    };
    // Past three chunks of 4,096 keys: the oldest keys' texts, digests and animals are on disk only.
    const clients = Promise.all(Array.from({ length: 8 }, (_, number) => client(number)));
    while (acknowledged.size < 13_000) await new Promise((resolve) => setTimeout(resolve, 20));
    const retryAll = async (url: string, keys: string[]) => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 8 }, async () => {
          while (next < keys.length) {
            const key = keys[next++]!;
            // The same key with another payload: its stored digest, read back from disk, tells them apart.
            const retry = await create(url, key, 'another name, the same key');
            expect(retry.status).toBe(422);
            expect(await retry.json()).toMatchObject({ code: 'idempotency_key_reused' });
          }
        }),
      );
    };
    const replay = async (url: string, key: string) => {
      const first = acknowledged.get(key)!;
      const retry = await create(url, key, first.name);
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(await retry.json()).toEqual(first);
    };
    for (const key of order.slice(0, 50)) await replay(server.url, key);
    // They are in a file of its own beside the data file, removed from the folder, held open: at least two chunks' worth
    // (a whole write's temp file, or the disk's probe, may be open and removed beside it).
    const spilled = fs
      .readdirSync(`/proc/${server.child.pid}/fd`)
      .map((fd) => ({ target: fs.readlinkSync(`/proc/${server.child.pid}/fd/${fd}`), fd }))
      .filter(({ target }) => target.startsWith(`${file}.`) && target.endsWith('.tmp (deleted)'));
    const sizes = spilled.map(({ fd }) => fs.statSync(`/proc/${server.child.pid}/fd/${fd}`).size);
    expect(Math.max(...sizes)).toBeGreaterThanOrEqual(2 * 4096 * 28);
    await new Promise((resolve) => setTimeout(resolve, Math.random() * 50));
    server.child.kill('SIGKILL');
    await server.exited;
    stopped = true;
    await clients;
    const stored = readDataFile(file).pets.length;

    const restarted = await startServer(file);
    const keys = [...acknowledged.keys()];
    for (const key of [...keys.slice(0, 20), ...keys.slice(-20)]) await replay(restarted.url, key);
    await retryAll(restarted.url, keys);
    restarted.child.kill('SIGTERM');
    expect((await restarted.exited).code).toBe(0);
    // No retry stored an animal: every one replayed or was refused.
    const document = JSON.parse(fs.readFileSync(file, 'utf8'));
    expect(document.pets).toHaveLength(stored);
    const byId = new Map(document.pets.map((pet: { id: number }) => [pet.id, pet]));
    for (const key of keys) expect(byId.get(acknowledged.get(key)!.id)).toEqual(acknowledged.get(key));
  });
});
