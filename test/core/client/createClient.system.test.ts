/** @module The typed client against a real server, an Express mount and in-process fetch doubles. */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expressMiddleware } from '../../../adapters/express.js';
import { type AnimalStoreServer, serve } from '../../../adapters/node.js';
import { AnimalStoreClientError, createClient, isAnimalStoreClientError } from '../../../core/client.js';
import { createMemoryStorage } from '../../../storage/createMemoryStorage.js';

const KEY = 'client-test-key-0001';

/** Expects a promise to fail with an AnimalStoreClientError and answers it. */
const failureOf = async (promise: Promise<unknown>): Promise<AnimalStoreClientError> => {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(AnimalStoreClientError);
  return error as AnimalStoreClientError;
};

describe('createClient against the standalone server', () => {
  let server: AnimalStoreServer;
  beforeAll(async () => {
    server = await serve({ storage: createMemoryStorage(), keys: [KEY], port: 0, logger: { warn: () => {} } });
  });
  afterAll(() => server.close());

  it("creates, lists and gets animals with the server's types", async () => {
    const client = createClient({ baseUrl: server.url, apiKey: KEY });
    const rex = await client.createPet({ name: 'Rex', categoryId: 1 });
    expect(rex).toEqual({ id: 1, name: 'Rex', categoryId: 1, status: 'available' });
    await client.createPet({ name: 'Tom', categoryId: 2, status: 'sold' });
    await client.createPet({ name: 'Kit', categoryId: 2, status: 'sold' });

    const first = await client.listPets({ limit: 2 });
    expect(first.pets.map((pet) => pet.name)).toEqual(['Rex', 'Tom']);
    expect(first.next?.cursor).toEqual(expect.any(String));
    const second = await client.listPets({ limit: 2, cursor: first.next!.cursor });
    expect(second).toEqual({ pets: [{ id: 3, name: 'Kit', categoryId: 2, status: 'sold' }] });
    expect(await client.getPet(2)).toEqual({ id: 2, name: 'Tom', categoryId: 2, status: 'sold' });
  });

  it('walks every page with allPets, keeping the status filter', async () => {
    const client = createClient({ baseUrl: `${server.url}/`, apiKey: KEY });
    for (let i = 0; i < 5; i++) await client.createPet({ name: `Sold ${i}`, categoryId: 9, status: 'sold' });
    const names: string[] = [];
    for await (const pet of client.allPets({ status: 'sold', limit: 2 })) names.push(pet.name);
    expect(names).toEqual(['Tom', 'Kit', 'Sold 0', 'Sold 1', 'Sold 2', 'Sold 3', 'Sold 4']);
  });

  it('throws the Error body as an AnimalStoreClientError: code, message, status, details', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: KEY });
    const invalid = await failureOf(client.createPet({ name: '', categoryId: 1 }));
    expect(invalid).toMatchObject({ code: 'validation_failed', status: 400 });
    expect(invalid.details).toEqual([{ path: 'name', message: expect.any(String) }]);
    expect(invalid.message).toMatch(/name/);
    const missing = await failureOf(client.getPet(999));
    expect(missing).toMatchObject({ code: 'not_found', status: 404 });
    const badLimit = await failureOf(client.listPets({ limit: 500 }));
    expect(badLimit).toMatchObject({ code: 'validation_failed', status: 400 });
  });

  it('reports a wrong key as unauthorized', async () => {
    const client = createClient({ baseUrl: server.url, apiKey: 'wrong' });
    const error = await failureOf(client.listPets());
    expect(error).toMatchObject({ code: 'unauthorized', status: 401 });
    expect(isAnimalStoreClientError(error)).toBe(true);
  });
});

describe('createClient against an Express mount', () => {
  it('follows next links that carry the mount path', async () => {
    const app = express();
    app.use('/catalogue', expressMiddleware({ storage: createMemoryStorage(), keys: [KEY] }));
    const server = createServer(app);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/catalogue/v1`;
      const client = createClient({ baseUrl, apiKey: KEY });
      for (const name of ['A', 'B', 'C']) await client.createPet({ name, categoryId: 1 });
      const names: string[] = [];
      for await (const pet of client.allPets({ limit: 1 })) names.push(pet.name);
      expect(names).toEqual(['A', 'B', 'C']);
    } finally {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    }
  });
});

describe('createClient failures that never produced an Error body', () => {
  it('reports an unreachable service as network_error with status 0', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}/v1`, apiKey: KEY });
    const error = await failureOf(client.listPets());
    expect(error).toMatchObject({ code: 'network_error', status: 0 });
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('reports an answer that is not JSON as invalid_response, with its status', async () => {
    const client = createClient({
      baseUrl: 'http://proxy.test/v1',
      apiKey: KEY,
      fetch: async () => new Response('<html>Bad Gateway</html>', { status: 502, headers: { 'content-type': 'text/html' } }),
    });
    const error = await failureOf(client.listPets());
    expect(error).toMatchObject({ code: 'invalid_response', status: 502 });
    expect(error.message).toMatch(/not JSON/);
  });

  it('reports a success body that is not an animal as invalid_response', async () => {
    const client = createClient({ baseUrl: 'http://odd.test/v1', apiKey: KEY, fetch: async () => Response.json({ hello: 'world' }) });
    expect(await failureOf(client.getPet(1))).toMatchObject({ code: 'invalid_response', status: 200 });
  });

  it("sends the key only to the base URL's origin, never following a next link elsewhere", async () => {
    const seen: string[] = [];
    const client = createClient({
      baseUrl: 'http://store.test/v1',
      apiKey: KEY,
      fetch: async (request) => {
        seen.push(request.url);
        return Response.json([], { headers: { link: '<http://evil.test/v1/pets?cursor=x>; rel="next"' } });
      },
    });
    const error = await failureOf(
      (async () => {
        for await (const _pet of client.allPets()) void _pet;
      })(),
    );
    expect(error.code).toBe('invalid_response');
    expect(seen).toEqual(['http://store.test/v1/pets']);
  });

  it('sends the key as a bearer credential and JSON with its content type', async () => {
    let sent: Request | undefined;
    const client = createClient({
      baseUrl: 'http://store.test/v1',
      apiKey: KEY,
      fetch: async (request) => {
        sent = request;
        return Response.json({ id: 1, name: 'Rex', categoryId: 1, status: 'available' }, { status: 201 });
      },
    });
    await client.createPet({ name: 'Rex', categoryId: 1 });
    expect(sent?.method).toBe('POST');
    expect(sent?.headers.get('authorization')).toBe(`Bearer ${KEY}`);
    expect(sent?.headers.get('content-type')).toBe('application/json');
    expect(await sent?.json()).toEqual({ name: 'Rex', categoryId: 1 });
  });
});
