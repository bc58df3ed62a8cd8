/** @module The fetch-runtime example drives the fetch export directly and through node:http. */
import { afterEach, describe, expect, it } from 'vitest';
import { killLeftoverExamples, runExample } from './runExample.js';

afterEach(killLeftoverExamples);

describe('examples/fetch-runtime', () => {
  it('answers fetch(request, env) with keys from env, and the same handler over node:http', async () => {
    const { code, stdout, stderr } = await runExample('examples/fetch-runtime/main.ts');
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('without a key: 401 unauthorized');
    expect(stdout).toContain('created with worker-key-0123456789: 201 {"id":1,"name":"Biscuit"');
    expect(stdout).toContain('created with next-worker-key-0123456789: 201 {"id":2,"name":"Nimbus"');
    expect(stdout).toMatch(/first page: \[\{"id":1,[^\]]*\], next: <\/v1\/pets\?limit=1&cursor=[^>]+>; rel="next"/);
    expect(stdout).toContain('over node:http: 201 at /v1/pets/3');
    expect(stdout).toContain('pending over node:http: [{"id":3,"name":"Pepper","categoryId":2,"status":"pending"}]');
  });
});
