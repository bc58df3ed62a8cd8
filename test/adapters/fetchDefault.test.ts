/** @module The default export of animal-store/fetch: a whole worker configured by its environment. */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

type Worker = { fetch(request: Request, env?: Record<string, unknown>): Promise<Response> };

/** Loads a fresh copy of the module: its service is made on the first request, once. */
const loadWorker = async (): Promise<Worker> => {
  vi.resetModules();
  return ((await import('../../adapters/fetch.js')) as { default: Worker }).default;
};

const list = (worker: Worker, key: string, env?: Record<string, unknown>) =>
  worker.fetch(new Request('https://worker.example/v1/pets', { headers: { authorization: `Bearer ${key}` } }), env);

describe('animal-store/fetch default export', () => {
  beforeEach(() => {
    vi.stubEnv('ANIMAL_STORE_API_KEYS', '');
  });
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.restoreAllMocks();
  });

  it('takes its keys from the env a Worker passes, comma-separated', async () => {
    const worker = await loadWorker();
    const env = { ANIMAL_STORE_API_KEYS: 'first-key-0123456789, second-key-0123456789' };
    expect((await list(worker, 'second-key-0123456789', env)).status).toBe(200);
    expect((await list(worker, 'other', env)).status).toBe(401);
  });

  it('takes its keys from process.env where the runtime has one', async () => {
    vi.stubEnv('ANIMAL_STORE_API_KEYS', 'from-process-0123456789');
    const worker = await loadWorker();
    expect((await list(worker, 'from-process-0123456789')).status).toBe(200);
  });

  it('answers an Error body, and logs why, when its keys are too short to be keys', async () => {
    const error = vi.spyOn(console, 'error').mockImplementation(() => {});
    const worker = await loadWorker();
    const env = { ANIMAL_STORE_API_KEYS: 'short' };
    const response = await list(worker, 'short', env);
    expect(response.status).toBe(500);
    const body = await response.json();
    expect(body).toEqual({ code: 'internal_error', message: expect.stringMatching(/not configured correctly/), status: 500 });
    expect(JSON.stringify(body)).not.toMatch(/short|16/);
    expect(error).toHaveBeenCalledWith(expect.stringMatching(/API key #1 has 5 characters; keys must have at least 16/));
  });

  it('never runs open: with no key configured it makes one and logs it once', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const worker = await loadWorker();
    expect((await list(worker, 'anything')).status).toBe(401);
    expect((await list(worker, 'anything')).status).toBe(401);
    expect(warn).toHaveBeenCalledTimes(1);
    const key = /generated an API key for this instance: (\S+)$/.exec(String(warn.mock.calls[0]?.[0]))?.[1];
    expect(key).toBeDefined();
    expect((await list(worker, key!)).status).toBe(200);
  });

  it('keeps animals in memory across requests, served at the root', async () => {
    const worker = await loadWorker();
    const env = { ANIMAL_STORE_API_KEYS: 'worker-test-key-0001' };
    const created = await worker.fetch(
      new Request('https://worker.example/v1/pets', {
        method: 'POST',
        headers: { authorization: 'Bearer worker-test-key-0001', 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Rex', categoryId: 1 }),
      }),
      env,
    );
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/v1/pets/1');
    expect(await (await list(worker, 'worker-test-key-0001', env)).json()).toEqual([
      { id: 1, name: 'Rex', categoryId: 1, status: 'available' },
    ]);
  });
});
