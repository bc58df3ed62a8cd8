import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createMemoryStorage, serve } from '../../../adapters/node.js';
import type { PetStorage } from '../../../core/index.js';

describe('serve (the standalone server)', () => {
  it('cuts off a client that sends its headers too slowly', async () => {
    const server = await serve({ storage: createMemoryStorage(), keys: ['test-key-0123456789'], port: 0, headersTimeout: 300 });
    try {
      const socket = connect(server.port, '127.0.0.1');
      socket.write('GET /v1/pets HTTP/1.1\r\nHost: x\r\n');
      let received = '';
      socket.on('data', (chunk) => (received += chunk.toString()));
      const closedAfter = await new Promise<number>((resolve) => {
        const started = Date.now();
        socket.on('close', () => resolve(Date.now() - started));
      });
      expect(closedAfter).toBeLessThan(5_000);
      expect(received).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      await server.close();
    }
  });

  it('close() lets in-flight requests finish, then closes the storage', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const memory = createMemoryStorage();
    let closed = false;
    const slowStorage: PetStorage = {
      ...memory,
      list: async (page) => {
        await gate;
        return memory.list(page);
      },
      close: async () => {
        closed = true;
      },
    };
    const server = await serve({ storage: slowStorage, keys: ['test-key-0123456789'], port: 0 });
    const inFlight = fetch(`${server.url}/pets`, { headers: { authorization: 'Bearer test-key-0123456789' } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closing = server.close();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(closed).toBe(false);
    release();
    expect((await inFlight).status).toBe(200);
    await closing;
    expect(closed).toBe(true);
    await expect(fetch(`${server.url}/pets`)).rejects.toThrow();
  });

  it('reports the real port and the base path in its url', async () => {
    const server = await serve({ storage: createMemoryStorage(), keys: ['test-key-0123456789'], port: 0, basePath: '/api/v2' });
    try {
      expect(server.url).toBe(`http://127.0.0.1:${server.port}/api/v2`);
      expect((await fetch(`${server.url}/pets`, { headers: { authorization: 'Bearer test-key-0123456789' } })).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});
