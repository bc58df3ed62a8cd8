/**
 * @module The bundled bin (dist/bin/animal-store.js), as `npx animal-store` runs it: its
 * version, the keys' worker it starts from its own folder, and a large data file written by
 * another program read, served and written back.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { beforeAll, describe, expect, it } from 'vitest';
import { BUILT_CLI, ensureBuilt, runBuiltCli, startBuiltCli } from '../support/builtCli.js';
import { REPO_ROOT } from '../support/nodeProcess.js';

beforeAll(ensureBuilt, 240_000);

const API_KEY = 'bundled-bin-key-0123456789';

const create = (url: string, key: string, name: string) =>
  fetch(`${url}/pets`, {
    method: 'POST',
    headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'idempotency-key': `"${key}"` },
    body: JSON.stringify({ name, categoryId: 3 }),
  });

const serveArgs = (file: string) => ['serve', file, '--port', '0', '--api-key', API_KEY, '--quiet'];

/** Stops a server with SIGTERM and waits for its clean exit (its data file then one document). */
const stop = async (server: Awaited<ReturnType<typeof startBuiltCli>>) => {
  server.child.kill('SIGTERM');
  expect((await server.exited).code).toBe(0);
};

describe('the bundled bin', () => {
  it('Should say the version of the package it came with', async () => {
    const { version } = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string };
    const run = runBuiltCli(['--version']);
    expect((await run.exited).code).toBe(0);
    expect(run.stdout().trim()).toBe(version);
  });

  it("Should have the keys worker beside it, where it starts it from, reading a keys part and a journal's change", async () => {
    const worker = new Worker(new URL('./keysWorker.js', pathToFileURL(BUILT_CLI)));
    try {
      const answer = new Promise((resolve, reject) => {
        worker.once('message', resolve);
        worker.once('error', reject);
      });
      const change = '{"format":2,"nextId":8,"pets":[{"id":7,"name":"Rex","categoryId":1,"status":"available"}],"idempotencyKeys":[]}';
      const line = Buffer.from(`${createHash('sha256').update(change).digest('hex').slice(0, 16)} ${change}\n`);
      worker.postMessage({ keys: Buffer.from('[]'), journal: { bytes: line, ends: [line.byteLength - 1] } });
      expect(await answer).toMatchObject({
        lines: undefined,
        keysEnd: 0,
        changes: { nextId: 8, pets: '[{"id":7,"name":"Rex","categoryId":1,"status":"available"}]', syncSteps: [] },
      });
    } finally {
      await worker.terminate();
    }
  });

  it('Should serve a large file another program wrote on one line, replay its keys, and write it back as its own', {
    timeout: 60_000,
  }, async () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-bundled-')), 'animals.json');
    // The service's own key first (its scope is the API key's fingerprint), then the file grown as a program would.
    const first = await startBuiltCli(serveArgs(file));
    expect((await create(first.url, 'order-1', 'Rex')).status).toBe(201);
    await stop(first);
    const document = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      nextId: number;
      pets: Array<{ id: number }>;
      idempotencyKeys: Array<{ key: string; petId: number }>;
    };
    const [ownKey] = document.idempotencyKeys;
    for (let id = 2; id <= 20_001; id++) document.pets.push({ id, name: `Animal ${id}`, categoryId: 1, status: 'available' } as never);
    // Over a megabyte of keys, so the worker reads them.
    for (let at = 0; at < 6_000; at++) document.idempotencyKeys.push({ ...ownKey!, key: `seeded-${at}`, petId: 2 + at });
    document.nextId = 20_002;
    fs.writeFileSync(file, JSON.stringify(document));
    expect(fs.statSync(file).size).toBeGreaterThan(2 * 1024 * 1024);

    const second = await startBuiltCli(serveArgs(file));
    const replayed = await create(second.url, 'order-1', 'Rex');
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(await replayed.json()).toEqual({ id: 1, name: 'Rex', categoryId: 3, status: 'available' });
    // A seeded key, the last the worker read: the same payload as the key it was copied from, so its own animal.
    const seeded = await create(second.url, 'seeded-5999', 'Rex');
    expect(seeded.headers.get('idempotent-replayed')).toBe('true');
    expect(((await seeded.json()) as { id: number }).id).toBe(6_001);
    const created = await create(second.url, 'order-2', 'Luna');
    expect(created.status).toBe(201);
    expect(((await created.json()) as { id: number }).id).toBe(20_002);
    await stop(second);
    // Written back as the server lays it out: an animal a line, every animal and key kept.
    const text = fs.readFileSync(file, 'utf8');
    expect(text.split('\n').length).toBeGreaterThan(26_000);
    const after = JSON.parse(text) as typeof document;
    expect(after.pets).toHaveLength(20_002);
    expect(after.idempotencyKeys.map(({ key }) => key)).toEqual([
      'order-1',
      ...document.idempotencyKeys.slice(1).map(({ key }) => key),
      'order-2',
    ]);
  });
});
