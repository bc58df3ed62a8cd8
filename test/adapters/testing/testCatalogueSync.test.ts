import { describe, expect, it } from 'vitest';
import { createTestCatalogue } from '../../../adapters/testing/createTestCatalogue.js';

describe('the test catalogue as a hub', () => {
  it('Should lease ids and take pushes, and forget both on reset', async () => {
    const pets = createTestCatalogue();
    const call = (path: string, body?: unknown) =>
      pets.fetch(`/v1${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { authorization: `Bearer ${pets.apiKey}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    const lease = await call('/sync/leases', {});
    expect(lease.status).toBe(201);
    expect(await lease.json()).toEqual({ first: 1, last: 1000 });
    const push = await call('/sync/push', { pets: [{ id: 7, name: 'Rex', categoryId: 1, status: 'sold' }] });
    expect(await push.json()).toEqual({ stored: 1, present: 0 });
    pets.reset();
    expect((await call('/sync/pull')).status).toBe(200);
    expect(await (await call('/sync/pull')).json()).toEqual({ pets: [], checkpoint: 0 });
    expect(await (await call('/sync/leases', {})).json()).toEqual({ first: 1, last: 1000 });
  });
});
