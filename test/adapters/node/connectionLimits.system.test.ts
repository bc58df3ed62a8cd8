/** @module The standalone server's limits on connections (issue 13, "Unauthenticated denial of service"), with small limits. */
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { addressKey } from '../../../adapters/node/limitConnections.js';
import { type AnimalStoreServer, createMemoryStorage, type ServeOptions, serve } from '../../../adapters/node.js';
import { createClient } from '../../../core/client.js';
import type { AccessLogEntry } from '../../../core/index.js';
import { expectErrorAnswer } from './errorAnswers.js';
import { exchange, parseAnswers } from './rawHttp.js';

const KEY = 'connection-limits-key-0123456789';
const healthz = 'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n';
let server: AnimalStoreServer | undefined;
const sockets: net.Socket[] = [];

afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await server?.close();
  server = undefined;
});

const start = async (options: Partial<ServeOptions>) => {
  server = await serve({ storage: createMemoryStorage(), keys: [KEY], port: 0, logger: {}, ...options });
  return server;
};

/** Opens a connection that sends nothing and resolves once the server has accepted it (or closed it). */
const idleConnection = (port: number, localAddress = '127.0.0.1') =>
  new Promise<net.Socket>((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', localAddress });
    sockets.push(socket);
    socket.on('error', () => {});
    socket.on('connect', () => setTimeout(() => resolve(socket), 50));
  });

/** Resolves once the server has `count` connections open. */
const serverConnections = (running: AnimalStoreServer) =>
  new Promise<number>((resolve, reject) => running.server.getConnections((error, count) => (error ? reject(error) : resolve(count))));

/** Resolves once a socket is closed, with what it received before. */
const closedWith = (socket: net.Socket) =>
  new Promise<string>((resolve) => {
    let received = '';
    socket.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    socket.once('close', () => resolve(received));
  });

/** The 503 a refused or shed connection is answered with. */
const expectNoRoom = (answer: Parameters<typeof expectErrorAnswer>[0]) => {
  const body = expectErrorAnswer(answer, 503, 'service_unavailable');
  expect(body.message).toMatch(/connections/);
  expect(answer!.headers['retry-after']).toBe('1');
  expect(answer!.headers.connection).toBe('close');
};

describe('connection caps', () => {
  it('answers 503 with Retry-After to a connection beyond maxConnectionsPerAddress, and keeps serving other addresses', async () => {
    const { port } = await start({ maxConnectionsPerAddress: 3, shedAfter: 60_000 });
    for (let i = 0; i < 3; i++) await idleConnection(port, '127.0.0.2');
    const over = await exchange(port, healthz, { localAddress: '127.0.0.2' });
    expect(over.closed).toBe(true);
    expect(over.answers).toHaveLength(1);
    expectNoRoom(over.answers[0]);
    const other = await exchange(port, healthz, { localAddress: '127.0.0.3', answers: 1 });
    expect(other.answers[0]!.status).toBe(200);
    // A freed place is a place again.
    sockets.shift()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    const again = await exchange(port, healthz, { localAddress: '127.0.0.2', answers: 1 });
    expect(again.answers[0]!.status).toBe(200);
  });

  it('answers 503 to a connection beyond maxConnections in total, when no open one may be closed', async () => {
    const running = await start({ maxConnections: 3, maxConnectionsPerAddress: 10, shedAfter: 60_000 });
    for (let i = 0; i < 3; i++) await idleConnection(running.port, `127.0.0.${2 + i}`);
    expect(await serverConnections(running)).toBe(3);
    const over = await exchange(running.port, healthz, { localAddress: '127.0.0.9' });
    expectNoRoom(over.answers[0]);
    sockets.shift()!.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await exchange(running.port, healthz, { answers: 1 })).answers[0]!.status).toBe(200);
  });

  it("does not cap the machine's own address per address, unless told to", async () => {
    const exempt = await start({ maxConnectionsPerAddress: 2, shedAfter: 60_000 });
    for (let i = 0; i < 4; i++) await idleConnection(exempt.port, '127.0.0.1');
    expect((await exchange(exempt.port, healthz, { localAddress: '127.0.0.1', answers: 1 })).answers[0]!.status).toBe(200);
    for (const socket of sockets.splice(0)) socket.destroy();
    await exempt.close();
    const capped = await start({ maxConnectionsPerAddress: 2, shedAfter: 60_000, exemptAddresses: [] });
    for (let i = 0; i < 2; i++) await idleConnection(capped.port, '127.0.0.1');
    expectNoRoom((await exchange(capped.port, healthz, { localAddress: '127.0.0.1' })).answers[0]);
  });

  it('closes the idle keep-alive that has waited longest to make room, and serves the newcomer', async () => {
    const running = await start({ maxConnections: 2, shedAfter: 1 });
    const older = net.connect(running.port, '127.0.0.1');
    const newer = net.connect(running.port, '127.0.0.1');
    sockets.push(older, newer);
    const olderClosed = closedWith(older);
    older.write(healthz);
    await new Promise((resolve) => setTimeout(resolve, 50));
    newer.write(healthz);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const served = await exchange(running.port, healthz, { answers: 1 });
    expect(served.answers[0]!.status).toBe(200);
    // Answered its one request, then closed quietly: no unasked-for answer.
    expect(parseAnswers(await olderClosed).answers.map((answer) => answer.status)).toEqual([200]);
    expect(newer.destroyed).toBe(false);
  });

  it('answers 503 to a slow client closed to make room, never one whose request is being answered', async () => {
    const running = await start({ maxConnections: 2, shedAfter: 1 });
    const slow = net.connect({ port: running.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    sockets.push(slow);
    slow.on('error', () => {});
    const slowClosed = closedWith(slow);
    slow.write('GET /healthz HTTP/1.1\r\nHo'); // and no more
    await idleConnection(running.port, '127.0.0.3');
    const served = await exchange(running.port, healthz, { localAddress: '127.0.0.4', answers: 1 });
    expect(served.answers[0]!.status).toBe(200);
    expectNoRoom(parseAnswers(await slowClosed).answers[0]);
  });

  it('closes quietly, to make room, a connection that has sent nothing yet (as browsers open ahead of need)', async () => {
    const running = await start({ maxConnections: 1, shedAfter: 1 });
    const early = net.connect({ port: running.port, host: '127.0.0.1' });
    sockets.push(early);
    const earlyClosed = closedWith(early);
    await new Promise((resolve) => early.once('connect', resolve));
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await exchange(running.port, healthz, { answers: 1 })).answers[0]!.status).toBe(200);
    expect(await earlyClosed).toBe('');
  });

  it('answers 503 to a create whose body trickles when it is closed to make room, and stores nothing', async () => {
    const access: AccessLogEntry[] = [];
    const running = await start({ maxConnections: 1, shedAfter: 1, logger: { access: (entry) => access.push(entry) } });
    const trickler = net.connect({ port: running.port, host: '127.0.0.1', localAddress: '127.0.0.2' });
    sockets.push(trickler);
    trickler.on('error', () => {});
    const tricklerClosed = closedWith(trickler);
    trickler.write(
      `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 40\r\n\r\n{"name":`,
    );
    await new Promise((resolve) => setTimeout(resolve, 50));
    const served = await exchange(running.port, healthz, { localAddress: '127.0.0.3', answers: 1 });
    expect(served.answers[0]!.status).toBe(200);
    expectNoRoom(parseAnswers(await tricklerClosed).answers[0]);
    expect((await running.service.catalogue.listPets()).pets).toEqual([]);
    expect(access).toContainEqual(expect.objectContaining({ method: 'POST', path: '/v1/pets', status: 503 }));
  });

  it('counts an IPv6 client by its /64 and an IPv4-mapped one by its IPv4 address', () => {
    expect(addressKey('2001:db8:1:2:aaaa::1')).toBe(addressKey('2001:db8:1:2:bbbb:cccc:dddd:eeee'));
    expect(addressKey('2001:db8:1:2::1')).not.toBe(addressKey('2001:db8:1:3::1'));
    expect(addressKey('::ffff:192.0.2.7')).toBe('192.0.2.7');
    expect(addressKey('192.0.2.7')).toBe('192.0.2.7');
  });
});

describe('the typed client at the connection caps', () => {
  it('rides out a refused connection as it would a 503: waits as Retry-After says, then creates once', async () => {
    const running = await start({ maxConnections: 1, shedAfter: 60_000 });
    const holder = await idleConnection(running.port, '127.0.0.2');
    const refusals: number[] = [];
    const client = createClient({
      baseUrl: running.url,
      apiKey: KEY,
      fetch: async (request) => {
        const response = await fetch(request);
        if (response.status === 503) {
          refusals.push(response.status);
          holder.destroy();
        }
        return response;
      },
    });
    const pet = await client.createPet({ name: 'Rex', categoryId: 1 });
    expect(pet).toMatchObject({ id: 1, name: 'Rex' });
    expect(refusals).toEqual([503]);
    expect((await running.service.catalogue.listPets()).pets).toHaveLength(1);
  });
});

describe('pipelining', () => {
  it('answers up to maxPipelinedRequests sent ahead, then 429 rate_limited with Retry-After, and closes', async () => {
    const access: AccessLogEntry[] = [];
    const { port } = await start({ maxPipelinedRequests: 4, logger: { access: (entry) => access.push(entry) } });
    const { answers, closed } = await exchange(port, healthz.repeat(10));
    expect(answers.slice(0, 4).map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const refusal = expectErrorAnswer(answers[4], 429, 'rate_limited');
    expect(refusal.message).toMatch(/4 requests/);
    expect(answers[4]!.headers['retry-after']).toBe('1');
    expect(answers[4]!.headers.connection).toBe('close');
    expect(answers).toHaveLength(5);
    expect(closed).toBe(true);
    expect(access.filter((entry) => entry.status === 429)).toHaveLength(1);
  });

  it('answers every request of a pipeline within the bound, and keeps the connection', async () => {
    const { port } = await start({ maxPipelinedRequests: 4 });
    const { answers, closed } = await exchange(port, healthz.repeat(4), { answers: 4 });
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(closed).toBe(false);
  });

  it('cuts at once a connection that pipelines far beyond the bound in one write', async () => {
    const running = await start({ maxPipelinedRequests: 4 });
    const { answers } = await exchange(running.port, healthz.repeat(2_000));
    expect(answers.length).toBeLessThanOrEqual(5);
    expect(await serverConnections(running)).toBe(0);
  });
});

describe('stalled writes', () => {
  it('closes a connection whose answers stop moving for writeTimeout: a client that asks and never reads', async () => {
    const running = await start({ writeTimeout: 500 });
    for (let i = 0; i < 100; i++) await running.service.catalogue.createPet({ name: 'x'.repeat(200), categoryId: 1 });
    const closed = new Promise<void>((resolve) => running.server.once('connection', (socket) => socket.once('close', () => resolve())));
    const client = net.connect(running.port, '127.0.0.1');
    sockets.push(client);
    client.pause(); // never reads
    client.on('error', () => {});
    const round = `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\n\r\n`.repeat(8);
    // Rounds of requests within the pipelining bound, until the kernel's buffers are full.
    const sending = setInterval(() => client.write(round), 20);
    try {
      await expect(
        Promise.race([closed.then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('still open'), 15_000))]),
      ).resolves.toBe('closed');
    } finally {
      clearInterval(sending);
    }
  }, 20_000);

  it('does not close a client that reads, however large its answers', async () => {
    const running = await start({ writeTimeout: 500 });
    for (let i = 0; i < 100; i++) await running.service.catalogue.createPet({ name: 'x'.repeat(200), categoryId: 1 });
    const request = `GET /v1/pets?limit=100 HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
    const { answers, closed } = await exchange(running.port, request.repeat(16), { answers: 16 });
    expect(answers.map((answer) => answer.status)).toEqual(Array(16).fill(200));
    expect(closed).toBe(false);
  });
});

describe('serve() options', () => {
  it('refuses a limit that is not a positive whole number, rather than start a server that refuses everyone', async () => {
    for (const options of [
      { maxConnectionsPerAddress: 0 },
      { maxConnections: -1 },
      { writeTimeout: Number.NaN },
      { maxPipelinedRequests: 1.5 },
      { shedAfter: 0 },
    ]) {
      await expect(start(options)).rejects.toThrow(/must be a positive whole number/);
    }
    await expect(start({ exemptAddresses: ['localhost'] })).rejects.toThrow(
      /exemptAddresses holds "localhost", which is not an IP address/,
    );
  });
});
