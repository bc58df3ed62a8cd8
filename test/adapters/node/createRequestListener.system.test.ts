/** @module The bridge from node:http to the service, on its own: what it does when the service fails or the client leaves. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createRequestListener } from '../../../adapters/node/createRequestListener.js';
import type { PetService } from '../../../core/index.js';
import { expectErrorAnswer } from './errorAnswers.js';
import { exchange } from './rawHttp.js';

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server?.closeAllConnections();
  server = undefined;
});

/** Serves a stand-in service through the listener; resolves with the port and what was reported. */
const serveWith = async (service: (request: Request) => Response | Promise<Response>) => {
  const reported: Array<{ message: string; error: unknown }> = [];
  server = createServer(
    createRequestListener(service as PetService, {
      maxPipelinedRequests: 16,
      logAnswer: () => {},
      reportError: (message, error) => reported.push({ message, error }),
    }),
  );
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, reported };
};

describe('createRequestListener', () => {
  it('answers a service that throws with a bare 500 Error, never its stack, and reports the error', async () => {
    const { port, reported } = await serveWith(async () => {
      throw new Error('boom at /work/secret/path.ts:12');
    });
    const { answers } = await exchange(port, 'GET /v1/pets HTTP/1.1\r\nHost: a\r\n\r\n', { answers: 1 });
    const body = expectErrorAnswer(answers[0], 500, 'internal_error');
    expect(body.message).not.toMatch(/boom/);
    expect(reported).toEqual([
      { message: 'GET /v1/pets failed', error: expect.objectContaining({ message: expect.stringMatching(/boom/) }) },
    ]);
  });

  it('writes an answer the service makes at once, and answers one that throws at once with a bare 500', async () => {
    const { port, reported } = await serveWith((request) => {
      if (request.url.endsWith('/throw')) throw new Error('boom at /work/secret/path.ts:12');
      return new Response('{"at":"once"}', { headers: { 'content-type': 'application/json' } });
    });
    const { answers } = await exchange(port, 'GET /once HTTP/1.1\r\nHost: a\r\n\r\nGET /throw HTTP/1.1\r\nHost: a\r\n\r\n', {
      answers: 2,
    });
    expect(answers[0]!.status).toBe(200);
    expect(answers[0]!.body).toBe('{"at":"once"}');
    expect(expectErrorAnswer(answers[1], 500, 'internal_error').message).not.toMatch(/boom/);
    expect(reported).toEqual([
      { message: 'GET /throw failed', error: expect.objectContaining({ message: expect.stringMatching(/boom/) }) },
    ]);
  });

  it('builds the Request on a fixed origin from the target, whatever Host says', async () => {
    let url = '';
    const { port } = await serveWith(async (request) => {
      url = request.url;
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    });
    await exchange(port, 'GET /v1/pets?limit=2 HTTP/1.1\r\nHost: evil.example:9999\r\n\r\n', { answers: 1 });
    expect(url).toBe('http://localhost/v1/pets?limit=2');
    await exchange(port, 'GET http://other.example/healthz HTTP/1.1\r\nHost: a\r\n\r\n', { answers: 1 });
    expect(url).toBe('http://localhost/healthz');
  });

  it('hands the service no body for a POST whose head frames none, and the body for one that does', async () => {
    const seen: Array<string | null> = [];
    const { port } = await serveWith(async (request) => {
      seen.push(request.body === null ? null : await request.text());
      return new Response(null, { status: 204 });
    });
    const head = 'POST /v1/sync/leases HTTP/1.1\r\nHost: a\r\n';
    await exchange(port, `${head}\r\n`, { answers: 1 });
    await exchange(port, `${head}Content-Length: 2\r\n\r\n{}`, { answers: 1 });
    await exchange(port, `${head}Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`, { answers: 1 });
    await exchange(port, `${head}Content-Length: 0\r\n\r\n`, { answers: 1 });
    expect(seen).toEqual([null, '{}', '{}', '']);
  });

  it('aborts the Request when the client leaves while its body is arriving, before the body read fails', async () => {
    let aborted: Promise<boolean> | undefined;
    let abortedWhenTheReadFailed: boolean | undefined;
    const { port } = await serveWith(async (request) => {
      aborted = new Promise((resolve) => request.signal.addEventListener('abort', () => resolve(true)));
      await request.text().catch(() => (abortedWhenTheReadFailed = request.signal.aborted));
      return new Response(null, { status: 204 });
    });
    const client = net.connect(port, '127.0.0.1');
    client.on('error', () => {});
    client.write('POST /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"name":');
    await new Promise((resolve) => setTimeout(resolve, 100));
    client.destroy();
    await expect(Promise.race([aborted, new Promise((resolve) => setTimeout(() => resolve('not aborted'), 2_000))])).resolves.toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 50));
    // So the service can tell a client that left from a failure of its own.
    expect(abortedWhenTheReadFailed).toBe(true);
  });

  it('does not abort a Request that arrived whole and was answered', async () => {
    let signal: AbortSignal | undefined;
    const { port } = await serveWith(async (request) => {
      signal = request.signal;
      await request.text();
      return new Response('{}', { headers: { 'content-type': 'application/json' } });
    });
    const { answers } = await exchange(port, 'POST /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\n{}', { answers: 1 });
    expect(answers[0]!.status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(signal?.aborted).toBe(false);
  });
});

describe('serve', () => {
  it('answers whatever throws (here the access logger) with a bare 500 Error, never a stack, and reports it', async () => {
    const { serve, createMemoryStorage } = await import('../../../adapters/node.js');
    const reported: unknown[] = [];
    const running = await serve({
      storage: createMemoryStorage(),
      keys: ['serve-throws-key-0123456789'],
      port: 0,
      logger: {
        access: () => {
          throw new Error('the log is full at /work/app/log.ts:3');
        },
        error: (_message, error) => reported.push(error),
      },
    });
    try {
      // /healthz is answered later (it asks the storage), getPet from memory at once.
      for (const head of ['GET /healthz HTTP/1.1', 'GET /v1/pets/1 HTTP/1.1\r\nAuthorization: Bearer serve-throws-key-0123456789']) {
        const { answers } = await exchange(running.port, `${head}\r\nHost: a\r\n\r\n`, { answers: 1 });
        expectErrorAnswer(answers[0], 500, 'internal_error');
      }
      expect(reported).toContainEqual(expect.objectContaining({ message: expect.stringMatching(/the log is full/) }));
    } finally {
      await running.close();
    }
  });
});
