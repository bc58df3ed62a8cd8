/** @module The Express example serves its own routes and the mounted catalogue side by side. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { killLeftoverExamples, type RunningExample, startExample } from './runExample.js';

const apiKey = 'express-test-key';
let app: RunningExample;
let origin: string;

beforeAll(async () => {
  app = await startExample('examples/express/main.ts', /listening on (http:\/\/\S+)/, {
    env: { PORT: '0', CATALOGUE_API_KEY: apiKey },
  });
  origin = app.ready[1]!;
});
afterAll(killLeftoverExamples);

const json = (body: unknown, key = apiKey) => ({
  method: 'POST',
  headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

describe('examples/express', () => {
  it("keeps the app's own routes working", async () => {
    const response = await fetch(`${origin}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('serves the catalogue under /catalogue/v1 despite the global express.json()', async () => {
    const created = await fetch(`${origin}/catalogue/v1/pets`, json({ name: 'Biscuit', categoryId: 1 }));
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/catalogue/v1/pets/1');
    expect(await created.json()).toEqual({ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' });

    const listed = await fetch(`${origin}/catalogue/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } });
    expect(await listed.json()).toEqual([{ id: 1, name: 'Biscuit', categoryId: 1, status: 'available' }]);
  });

  it('answers a bad animal with the Error body and its details', async () => {
    const response = await fetch(`${origin}/catalogue/v1/pets`, json({ name: 'Nimbus', categoryId: 0 }));
    expect(response.status).toBe(400);
    const body = await response.json();
    expect(body).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(body.details).toEqual([expect.objectContaining({ path: 'categoryId' })]);
  });

  it('asks for the key on catalogue routes only', async () => {
    const response = await fetch(`${origin}/catalogue/v1/pets`);
    expect(response.status).toBe(401);
    expect((await response.json()).code).toBe('unauthorized');
  });

  it('lets its own order route use the catalogue in process', async () => {
    const ordered = await fetch(`${origin}/api/orders`, json({ petId: 1, customer: 'Ada' }));
    expect(ordered.status).toBe(201);
    expect(await ordered.json()).toEqual({ id: 1, petId: 1, customer: 'Ada', petName: 'Biscuit' });

    const missing = await fetch(`${origin}/api/orders`, json({ petId: 99, customer: 'Ada' }));
    expect(missing.status).toBe(404);
    expect((await missing.json()).code).toBe('not_found');

    expect(await (await fetch(`${origin}/api/orders`)).json()).toHaveLength(1);
  });

  it('stops cleanly on SIGTERM', async () => {
    const { code, stderr } = await app.stop();
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});
