/** @module createFetchHandler (animal-store/fetch) when something inside throws. */
import { describe, expect, it } from 'vitest';
import { createFetchHandler } from '../../adapters/fetch.js';
import { createMemoryStorage } from '../../storage/createMemoryStorage.js';
import { LEAK } from './node/errorAnswers.js';

describe('createFetchHandler', () => {
  it('answers whatever throws (here the access logger) with a bare 500 Error, never a stack, and reports it', async () => {
    const reported: unknown[] = [];
    const handler = createFetchHandler({
      storage: createMemoryStorage(),
      keys: ['fetch-handler-key-0123456789'],
      logger: {
        access: () => {
          throw new Error('the log is full at /work/app/log.ts:3');
        },
        error: (_message, error) => reported.push(error),
      },
    });
    const response = await handler.fetch(new Request('https://worker.example/healthz'));
    expect(response.status).toBe(500);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const text = await response.text();
    expect(text).not.toMatch(LEAK);
    expect(JSON.parse(text)).toMatchObject({ code: 'internal_error', status: 500 });
    expect(reported).toEqual([expect.objectContaining({ message: expect.stringMatching(/the log is full/) })]);
  });
});
