/** @module What the service tells an operator: access-log entries by operation, request ids. */
import { describe, expect, it } from 'vitest';
import type { AccessLogEntry } from '../../core/index.js';
import { makeService } from './helpers.js';

const logged = () => {
  const entries: AccessLogEntry[] = [];
  return { entries, logger: { access: (entry: AccessLogEntry) => entries.push(entry), warn: () => {} } };
};

describe('the access log', () => {
  it("names each request's operation, with its status and a sub-millisecond duration, never a key", async () => {
    const { entries, logger } = logged();
    let now = 1_000;
    const { call, post } = makeService({ logger, now: () => (now += 0.125) });
    await post({ name: 'Rex', categoryId: 1 });
    await call('/v1/pets?limit=1');
    await call('/v1/pets/1');
    await call('/v1/openapi.json', { key: null });
    await call('/healthz', { key: null });
    await call('/v1/docs', { key: null });
    await call('/v1/nothing');
    await call('/v1/pets', { method: 'DELETE' });
    expect(entries.map(({ operation, status }) => [operation, status])).toEqual([
      ['createPet', 201],
      ['listPets', 200],
      ['getPet', 200],
      ['getOpenApiDocument', 200],
      ['checkHealth', 200],
      ['getReference', 200],
      [undefined, 404],
      [undefined, 405],
    ]);
    for (const entry of entries) expect(entry.milliseconds).toBe(0.125);
    expect(JSON.stringify(entries)).not.toContain('test-key');
  });

  it('times requests with sub-millisecond precision by default', async () => {
    const { entries, logger } = logged();
    const { call } = makeService({ logger });
    for (let request = 0; request < 20; request++) await call('/v1/pets');
    expect(entries.some((entry) => !Number.isInteger(entry.milliseconds))).toBe(true);
  });
});

describe('request ids', () => {
  it('are off by default', async () => {
    const { call } = makeService();
    expect((await call('/v1/pets', { headers: { 'x-request-id': 'abc' } })).headers.get('x-request-id')).toBeNull();
  });

  it("echo a caller's safe id, make one otherwise, on every answer and in the access log", async () => {
    const { entries, logger } = logged();
    const { call } = makeService({ logger, requestIds: true });
    expect((await call('/v1/pets', { headers: { 'x-request-id': 'trace-42.a:b_c' } })).headers.get('x-request-id')).toBe('trace-42.a:b_c');
    const made = await call('/v1/pets', { key: null, headers: { 'x-request-id': 'has spaces and\u00e9' } });
    expect(made.status).toBe(401);
    const id = made.headers.get('x-request-id');
    expect(id).toMatch(/^[A-Za-z0-9_-]+-\d+$/);
    const another = (await call('/v1/pets')).headers.get('x-request-id');
    expect(another).not.toBe(id);
    expect(entries.map((entry) => entry.requestId)).toEqual(['trace-42.a:b_c', id, another]);
    expect((await call('/v1/pets', { headers: { 'x-request-id': 'x'.repeat(129) } })).headers.get('x-request-id')).not.toBe(
      'x'.repeat(129),
    );
  });
});
