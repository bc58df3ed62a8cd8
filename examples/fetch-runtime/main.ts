/**
 * @module Fetch-runtime example: `animal-store/fetch` default-exports `{ fetch }`, the shape
 * Bun, Deno, Cloudflare Workers and framework route handlers serve, with the catalogue in
 * memory (no file system needed) and API keys from `ANIMAL_STORE_API_KEYS`. Here Node
 * plays the runtime: it calls `fetch(request, env)` directly, as a Worker host would, then
 * puts the same handler behind a `node:http` server with a small bridge and calls it over
 * a real socket.
 *
 * Run (from this repository; see examples/README.md):
 * `node --conditions=animal-store-source --import tsx examples/fetch-runtime/main.ts`
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import worker from 'animal-store/fetch';

/** What a Worker host passes as `env`: two keys valid at once, as during a rotation. */
const env = { ANIMAL_STORE_API_KEYS: 'worker-key-0123456789,next-worker-key-0123456789' };
const origin = 'https://animals.example';

/** A request as the runtime would hand it to the worker. */
const request = (path: string, key?: string, body?: unknown) =>
  new Request(new URL(path, origin), {
    method: body === undefined ? 'GET' : 'POST',
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

const anonymous = await worker.fetch(request('/v1/pets'), env);
console.log(`without a key: ${anonymous.status} ${(await anonymous.json()).code}`);

for (const [name, key] of [
  ['Biscuit', 'worker-key-0123456789'],
  ['Nimbus', 'next-worker-key-0123456789'],
] as const) {
  const created = await worker.fetch(request('/v1/pets', key, { name, categoryId: 1 }), env);
  console.log(`created with ${key}: ${created.status} ${JSON.stringify(await created.json())}`);
}

const firstPage = await worker.fetch(request('/v1/pets?limit=1', 'worker-key-0123456789'), env);
console.log(`first page: ${JSON.stringify(await firstPage.json())}, next: ${firstPage.headers.get('link')}`);

/**
 * A bridge from node:http to a fetch handler: the request becomes a Web Request, the Web
 * Response is written back. Bun and Deno need none of this; they call `fetch` themselves.
 */
const bridge = (handler: (request: Request) => Promise<Response>) => async (incoming: IncomingMessage, outgoing: ServerResponse) => {
  const headers = new Headers();
  for (const [name, value] of Object.entries(incoming.headers)) {
    if (typeof value === 'string') headers.set(name, value);
  }
  const hasBody = incoming.method !== 'GET' && incoming.method !== 'HEAD';
  const response = await handler(
    new Request(new URL(incoming.url ?? '/', `http://${incoming.headers.host}`), {
      method: incoming.method ?? 'GET',
      headers,
      ...(hasBody ? { body: Readable.toWeb(incoming) as ReadableStream<Uint8Array>, duplex: 'half' } : {}),
    } as RequestInit),
  );
  outgoing.writeHead(response.status, Object.fromEntries(response.headers));
  outgoing.end(Buffer.from(await response.arrayBuffer()));
};

const server = createServer(bridge((incoming) => worker.fetch(incoming, env)));
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

const overHttp = await fetch(`${base}/v1/pets`, {
  method: 'POST',
  headers: { authorization: 'Bearer worker-key-0123456789', 'content-type': 'application/json' },
  body: JSON.stringify({ name: 'Pepper', categoryId: 2, status: 'pending' }),
});
console.log(`over node:http: ${overHttp.status} at ${overHttp.headers.get('location')}`);
const pending = await fetch(`${base}/v1/pets?status=pending`, { headers: { authorization: 'Bearer worker-key-0123456789' } });
console.log(`pending over node:http: ${JSON.stringify(await pending.json())}`);

server.close();
server.closeIdleConnections();
