/** @module The standalone server against requests no HTTP client would send (issue 13, "Hostile headers and targets"). */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnimalStoreServer, createMemoryStorage, serve } from '../../../adapters/node.js';
import type { AccessLogEntry } from '../../../core/index.js';
import { expectErrorAnswer } from './errorAnswers.js';
import { exchange } from './rawHttp.js';

const KEY = 'hostile-requests-key-0123456789';
let server: AnimalStoreServer;
let access: AccessLogEntry[];
let errors: unknown[];

beforeEach(async () => {
  access = [];
  errors = [];
  server = await serve({
    storage: createMemoryStorage(),
    keys: [KEY],
    port: 0,
    headersTimeout: 500,
    logger: { access: (entry) => access.push(entry), error: (_message, error) => errors.push(error) },
  });
  await server.service.catalogue.createPet({ name: 'Rex', categoryId: 1 });
});
afterEach(() => server.close());

const send = (bytes: string, methods?: string[]) => exchange(server.port, bytes, { answers: 1, ...(methods ? { methods } : {}) });

describe('a malformed Host', () => {
  it.each(['a b', '[::1', '%zz', 'x:99999', 'x/v1/pets/1#', 'x\\y', 'x?y'])(
    'answers Host: %s with a 400 Error naming Host, and logs one line',
    async (host) => {
      const { answers } = await send(`GET /healthz HTTP/1.1\r\nHost: ${host}\r\n\r\n`);
      const body = expectErrorAnswer(answers[0], 400, 'validation_failed');
      expect(body.details).toEqual([{ path: 'Host', message: expect.any(String) }]);
      expect(answers[0]!.headers.connection).toBe('close');
      expect(access).toEqual([{ method: 'GET', path: '/healthz', status: 400, milliseconds: 0 }]);
      expect(errors).toEqual([]);
    },
  );

  it('never routes by Host: `Host: x/v1/pets/1#` on /healthz is a 400, not the animal', async () => {
    const { answers } = await send(`GET /healthz HTTP/1.1\r\nHost: x/v1/pets/1#\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
    expect(answers[0]!.status).toBe(400);
    expect(answers[0]!.body).not.toContain('Rex');
  });

  it('answers a HEAD with a malformed Host with the same status and no body', async () => {
    const { answers } = await send('HEAD /healthz HTTP/1.1\r\nHost: a b\r\n\r\n', ['HEAD']);
    expect(answers[0]!.status).toBe(400);
    expect(answers[0]!.body).toBe('');
  });

  it('answers an HTTP/1.1 request without Host, or with two, with a 400 Error naming Host', async () => {
    const without = await send('GET /healthz HTTP/1.1\r\n\r\n');
    expect(expectErrorAnswer(without.answers[0], 400, 'validation_failed').details?.[0]?.path).toBe('Host');
    const twice = await send('GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(expectErrorAnswer(twice.answers[0], 400, 'validation_failed').details?.[0]?.path).toBe('Host');
  });

  it('serves an HTTP/1.0 request without Host', async () => {
    const { answers } = await send('GET /healthz HTTP/1.0\r\n\r\n');
    expect(answers[0]!.status).toBe(200);
  });
});

describe('the request target', () => {
  it('accepts an absolute-form target (RFC 9112 §3.2.2): its path and query are the request', async () => {
    const { answers } = await send(
      `GET http://example.com/v1/pets?limit=1 HTTP/1.1\r\nHost: example.com\r\nAuthorization: Bearer ${KEY}\r\n\r\n`,
    );
    expect(answers[0]!.status).toBe(200);
    expect(JSON.parse(answers[0]!.body)).toEqual([{ id: 1, name: 'Rex', categoryId: 1, status: 'available' }]);
    expect(access.at(-1)).toMatchObject({ method: 'GET', path: '/v1/pets', status: 200 });
  });

  it('answers a target that is neither a path nor an http URL (`OPTIONS *`) with a 400 Error', async () => {
    const { answers } = await send('OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n');
    expect(expectErrorAnswer(answers[0], 400, 'validation_failed').details?.[0]?.path).toBe('request-target');
  });
});

describe('two Authorization headers', () => {
  it('are a 400 Error naming Authorization, not the first one winning', async () => {
    const { answers } = await send(
      `GET /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\nAuthorization: Bearer wrong\r\n\r\n`,
    );
    expect(expectErrorAnswer(answers[0], 400, 'validation_failed').details).toEqual([
      { path: 'Authorization', message: expect.any(String) },
    ]);
  });
});

describe('what node:http refuses itself', () => {
  it('answers a malformed request line with a 400 Error body, nosniff, and closes', async () => {
    const { answers, closed } = await exchange(server.port, 'GET /healthz HTTP/1.1 extra\r\nHost: a\r\n\r\n');
    expectErrorAnswer(answers[0], 400, 'validation_failed');
    expect(answers[0]!.headers.connection).toBe('close');
    expect(closed).toBe(true);
  });

  it('answers headers over 16 KiB with a 431 Error body', async () => {
    const { answers } = await send(`GET /healthz HTTP/1.1\r\nHost: a\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`);
    expectErrorAnswer(answers[0], 431, 'validation_failed');
  });

  it('answers headers that do not arrive in time with a 408 Error body', async () => {
    const { answers, closed } = await exchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n');
    expectErrorAnswer(answers[0], 408, 'request_timeout');
    expect(closed).toBe(true);
    expect(access.at(-1)).toMatchObject({ status: 408 });
  });

  it('answers a body with a malformed chunked framing with a 400 Error body', async () => {
    const { answers } = await send(
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    );
    // The head was well-formed, so the service may have begun; whatever answers, it is an Error body.
    expect(answers[0]!.status).toBe(400);
    expect(answers[0]!.body).toMatch(/"status":400/);
  });

  it('serves a request with an expectation it does not know, instead of an empty 417', async () => {
    const { answers } = await send('GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: something-else\r\n\r\n');
    expect(answers[0]!.status).toBe(200);
  });

  it('answers a request pipelined after a malformed one only for the well-formed part, then closes', async () => {
    const { answers, closed } = await exchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\nNOT HTTP AT ALL\r\n\r\n', {
      timeoutMs: 10_000,
    });
    expect(answers[0]!.status).toBe(200);
    expect(answers.slice(1).every((answer) => answer.status === 400)).toBe(true);
    expect(closed).toBe(true);
  });
});
