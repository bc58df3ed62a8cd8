import { describe, expect, it, vi } from 'vitest';
import { createTestControl } from '../../../adapters/cli/createTestControl.js';
import { nodeSha256 } from '../../../adapters/node/serve.js';
import { createTestCatalogue } from '../../../adapters/testing/createTestCatalogue.js';

const KEY = 'test-mode-key-0123456';
const ORIGIN = 'http://127.0.0.1';

/** A test catalogue and its control, as `--test-mode` puts them together. */
const controlled = (delay = 0) => {
  const pets = createTestCatalogue({ seed: [{ id: 7, name: 'Rex', categoryId: 1, status: 'available' }], keys: [KEY] });
  const errors: unknown[] = [];
  const control = createTestControl(pets, { keys: [KEY], sha256: nodeSha256, delay, reportError: (_message, error) => errors.push(error) });
  const call = (method: string, path: string, body?: unknown, key: string | null = KEY) =>
    control(
      new Request(`${ORIGIN}${path}`, {
        method,
        headers: { ...(key === null ? {} : { authorization: `Bearer ${key}` }), 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      }),
    );
  return { pets, call, errors };
};

describe('test mode endpoints', () => {
  it('POST /_test/reset brings back the seed, ids included', async () => {
    const { pets, call } = controlled();
    expect(await pets.catalogue.createPet({ name: 'Tom', categoryId: 2 })).toMatchObject({ id: 8 });
    const reset = await call('POST', '/_test/reset');
    expect(reset?.status).toBe(204);
    expect((await pets.catalogue.listPets()).pets).toEqual([{ id: 7, name: 'Rex', categoryId: 1, status: 'available' }]);
    expect(await pets.catalogue.createPet({ name: 'Kiki', categoryId: 2 })).toMatchObject({ id: 8 });
  });

  it('POST /_test/faults injects a fault as withFaults does; DELETE /_test/faults clears them', async () => {
    const { pets, call } = controlled();
    expect((await call('POST', '/_test/faults', { operation: 'listPets', error: 'storage_unavailable', times: 1 }))?.status).toBe(204);
    await expect(pets.catalogue.listPets()).rejects.toMatchObject({ code: 'storage_unavailable' });
    expect((await pets.catalogue.listPets()).pets).toHaveLength(1);

    await call('POST', '/_test/faults', { operation: 'getPet', error: 'internal_error' });
    expect((await call('DELETE', '/_test/faults'))?.status).toBe(204);
    expect(await pets.catalogue.getPet(7)).toMatchObject({ name: 'Rex' });
  });

  it('asks for a key, and answers mistakes with Error bodies', async () => {
    const { call } = controlled();
    const cases: Array<[Response | undefined, number, string]> = [
      [await call('POST', '/_test/reset', undefined, null), 401, 'unauthorized'],
      [await call('POST', '/_test/reset', undefined, 'wrong-key-0123456789'), 401, 'unauthorized'],
      [await call('GET', '/_test/reset'), 405, 'method_not_allowed'],
      [await call('POST', '/_test/nothing'), 404, 'not_found'],
      [await call('POST', '/_test/faults', '{"operation":'), 400, 'invalid_json'],
      [await call('POST', '/_test/faults', { operation: 'deletePet', error: 'gone' }), 400, 'validation_failed'],
      [await call('POST', '/_test/faults', { operation: 'listPets', latency: -1 }), 400, 'validation_failed'],
      [await call('POST', '/_test/faults', { operation: 'listPets', error: 'on_fire' }), 400, 'validation_failed'],
      [await call('POST', '/_test/faults', { operation: 'listPets', error: 'gone', when: 'now' }), 400, 'validation_failed'],
      [await call('POST', '/_test/faults', { operation: 'listPets' }), 400, 'validation_failed'],
    ];
    for (const [response, status, code] of cases) {
      expect(response?.status).toBe(status);
      expect(response?.headers.get('content-type')).toBe('application/json');
      expect(await response?.json()).toMatchObject({ code, status, message: expect.any(String) });
    }
    expect(cases[2]![0]?.headers.get('allow')).toBe('POST');
  });

  it('hands every other request on, after the delay', async () => {
    vi.useFakeTimers();
    try {
      const { call } = controlled(30);
      let passed = false;
      const handedOn = call('GET', '/v1/pets').then((answer) => {
        passed = true;
        return answer;
      });
      await vi.advanceTimersByTimeAsync(29);
      expect(passed).toBe(false);
      await vi.advanceTimersByTimeAsync(1);
      expect(await handedOn).toBeUndefined();
      expect(passed).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });
});
