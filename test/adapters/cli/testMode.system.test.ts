/**
 * @module `animal-store --test-mode`, as an end-to-end suite (Playwright, Cypress) drives it:
 * reset to the seed between tests, faults and latency injected over HTTP, every answer delayed.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverProcesses, runCli, startCli } from '../../support/startCli.js';
import { tempFolder } from '../../support/tempFolder.js';

afterEach(killLeftoverProcesses);

const KEY = 'end-to-end-key-0123456';
const authed = { authorization: `Bearer ${KEY}` };

const startTestMode = async (extra: string[] = []) => {
  const seed = path.join(tempFolder(), 'seed.json');
  writeFileSync(
    seed,
    JSON.stringify([
      { id: 1, name: 'Biscuit', categoryId: 1, status: 'available' },
      { id: 2, name: 'Nimbus', categoryId: 2, status: 'pending' },
    ]),
  );
  const cli = await startCli(['--test-mode', '--seed', seed, '--port', '0', '--api-key', KEY, ...extra]);
  const origin = new URL(cli.url).origin;
  const control = (method: string, what: 'reset' | 'faults', body?: unknown, headers: Record<string, string> = authed) =>
    fetch(`${origin}/_test/${what}`, {
      method,
      headers: { ...headers, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  return { ...cli, control };
};

const create = (url: string, name: string) =>
  fetch(`${url}/pets`, {
    method: 'POST',
    headers: { ...authed, 'content-type': 'application/json' },
    body: JSON.stringify({ name, categoryId: 1 }),
  });

describe('animal-store --test-mode', () => {
  it('POST /_test/reset goes back to the seed, ids included', async () => {
    const { url, control } = await startTestMode();
    expect(await (await create(url, 'Pepper')).json()).toMatchObject({ id: 3 });
    const reset = await control('POST', 'reset');
    expect(reset.status).toBe(204);
    expect((await (await fetch(`${url}/pets`, { headers: authed })).json()).map((pet: { id: number }) => pet.id)).toEqual([1, 2]);
    expect(await (await create(url, 'Juniper')).json()).toMatchObject({ id: 3, name: 'Juniper' });
  });

  it('injects faults as withFaults does, and clears them', async () => {
    const { url, control, stderr } = await startTestMode();
    expect((await control('POST', 'faults', { operation: 'listPets', error: 'storage_unavailable', times: 1 })).status).toBe(204);
    const failed = await fetch(`${url}/pets`, { headers: authed });
    expect(failed.status).toBe(503);
    expect(failed.headers.get('retry-after')).toBe('0');
    expect(await failed.json()).toMatchObject({ code: 'storage_unavailable', status: 503 });
    expect((await fetch(`${url}/pets`, { headers: authed })).status).toBe(200);

    await control('POST', 'faults', { operation: 'createPet', error: 'internal_error' });
    expect((await create(url, 'Pepper')).status).toBe(500);
    expect((await control('DELETE', 'faults')).status).toBe(204);
    expect((await create(url, 'Pepper')).status).toBe(201);
    // Faults a test asked for are not the operator's news.
    expect(stderr()).not.toMatch(/error/);
  });

  it('keeps its endpoints behind the keys, and answers mistakes with Error bodies', async () => {
    const { control } = await startTestMode();
    const anonymous = await control('POST', 'reset', undefined, {});
    expect(anonymous.status).toBe(401);
    expect(await anonymous.json()).toMatchObject({ code: 'unauthorized', status: 401 });
    const wrong = await control('POST', 'faults', { operation: 'sellPet', latency: 10 });
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ code: 'validation_failed', details: [{ path: 'operation' }] });
  });

  it('--delay holds every answer back', async () => {
    const { url } = await startTestMode(['--delay', '400']);
    const answer = fetch(`${url}/pets`, { headers: authed });
    const first = await Promise.race([
      answer.then(() => 'answer'),
      new Promise((resolve) => setTimeout(() => resolve('100 ms later'), 100)),
    ]);
    expect(first).toBe('100 ms later');
    expect((await answer).status).toBe(200);
  });

  it('is refused with a data file or a database, exit code 2', async () => {
    for (const [argv, message] of [
      [['--test-mode', '--data', 'x.json'], /--test-mode keeps animals in memory only; it cannot be used with --data/],
      [['--test-mode', '--database', 'postgres://h/d'], /--test-mode keeps animals in memory only; it cannot be used with --database/],
    ] as const) {
      const cli = runCli([...argv]);
      expect((await cli.exited).code).toBe(2);
      expect(cli.stderr()).toMatch(message);
    }
  });
});
