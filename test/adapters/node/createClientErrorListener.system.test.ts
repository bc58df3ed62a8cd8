/** @module What node:http refuses mid-request, answered by the clientError listener beside the request listener (as serve() wires them). */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createClientErrorListener } from '../../../adapters/node/createClientErrorListener.js';
import { createRequestListener } from '../../../adapters/node/createRequestListener.js';
import type { PetService } from '../../../core/index.js';
import { expectErrorAnswer } from './errorAnswers.js';
import { exchange } from './rawHttp.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A stand-in service that reads the body; `reads` settle with how its read ended and whether the Request was aborted by then. */
const serveReadingBodies = async (options: { requestTimeout?: number } = {}) => {
  const reads: Array<Promise<{ read: 'ended' | 'failed'; aborted: boolean }>> = [];
  const service = (async (request: Request) => {
    const read = request.text().then(
      () => ({ read: 'ended' as const, aborted: request.signal.aborted }),
      () => ({ read: 'failed' as const, aborted: request.signal.aborted }),
    );
    reads.push(read);
    await read;
    return new Response('{}', { headers: { 'content-type': 'application/json' } });
  }) as PetService;
  server = createServer(
    { requestTimeout: options.requestTimeout ?? 30_000, connectionsCheckingInterval: 100 },
    createRequestListener(service, { maxPipelinedRequests: 16, logAnswer: () => {}, reportError: () => {} }),
  );
  server.on(
    'clientError',
    createClientErrorListener(() => {}),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, reads };
};

const settledWithin = <T>(promise: Promise<T> | undefined, milliseconds: number) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(() => resolve('still waiting'), milliseconds))]);

const head = 'POST /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\n';

describe('the clientError listener', () => {
  it.each([
    ['a Content-Length body', `${head}Content-Length: 1000\r\n\r\n{"name":`],
    ['a chunked body', `${head}Transfer-Encoding: chunked\r\n\r\n5\r\n{"nam`],
  ])('ends the read of %s the client stopped sending (it closed its side), aborting the Request first', async (_, bytes) => {
    const { port, reads } = await serveReadingBodies();
    const client = net.connect(port, '127.0.0.1');
    client.on('error', () => {});
    client.write(bytes);
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.end();
    await expect(settledWithin(reads[0], 2_000)).resolves.toEqual({ read: 'failed', aborted: true });
    client.destroy();
  });

  it('answers a body that trickles past the request timeout with a 408 Error, and ends its read', async () => {
    const { port, reads } = await serveReadingBodies({ requestTimeout: 300 });
    const { answers, closed } = await exchange(port, `${head}Content-Length: 1000\r\n\r\n{"name":`, { timeoutMs: 3_000 });
    expectErrorAnswer(answers[0], 408, 'request_timeout');
    expect(closed).toBe(true);
    await expect(settledWithin(reads[0], 2_000)).resolves.toEqual({ read: 'failed', aborted: true });
  });

  it('answers a broken chunk with a 400 Error, and ends the read', async () => {
    const { port, reads } = await serveReadingBodies();
    const { answers } = await exchange(port, `${head}Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`, { answers: 1 });
    expectErrorAnswer(answers[0], 400, 'validation_failed');
    await expect(settledWithin(reads[0], 2_000)).resolves.toEqual({ read: 'failed', aborted: true });
  });
});
