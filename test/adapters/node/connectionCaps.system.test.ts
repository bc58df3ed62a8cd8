/**
 * @module The connection caps against the real command line (issue 18 items 1, 2 and 5;
 * issue 24 item 4): ordinary clients on the same machine are never refused for the
 * connections they keep, abuse from one remote address stays bounded, and slow clients
 * cannot lock a normal one out.
 */
import { execFile } from 'node:child_process';
import net from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { waitForOutput } from '../../support/nodeProcess.js';
import { startCli } from '../../support/startCli.js';
import { startHostileClients, stopHostileClients } from './childProcesses.js';
import { exchange, parseAnswers } from './rawHttp.js';

const KEY = 'connection-caps-key-0123456789';
const authorization = `Bearer ${KEY}`;

/** `animal-store` in memory on a free port, with extra flags. */
const serveCli = (...flags: string[]) => startCli(['--memory', '--port', '0', '--api-key', KEY, '--quiet', ...flags]);

/** A create as raw HTTP/1.1. */
const rawCreate = (name: string) => {
  const body = JSON.stringify({ name, categoryId: 1 });
  return `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: ${authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};

/** Opens `count` keep-alive connections from this machine, each asks once and is answered, then stays open, idle. */
const idlePool = async (port: number, count: number) => {
  const pool = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<{ socket: net.Socket; received: () => string }>((resolve, reject) => {
          const socket = net.connect(port, '127.0.0.1');
          let received = '';
          socket.setEncoding('latin1');
          socket.on('error', reject);
          socket.on('data', (chunk: string) => {
            received += chunk;
            if (parseAnswers(received).answers.length === 1) resolve({ socket, received: () => received });
          });
          socket.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
        }),
    ),
  );
  for (const { socket } of pool) socket.removeAllListeners('error').on('error', () => {});
  return pool;
};

/** wrk's socket errors and non-2xx answers over a run. */
const runWrk = async (url: string, connections: number, seconds: number) => {
  const { stdout } = await promisify(execFile)('wrk', ['-t1', `-c${connections}`, `-d${seconds}s`, url], {
    timeout: (seconds + 30) * 1000,
  });
  const errors = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(stdout);
  return {
    socketErrors: errors ? errors.slice(1).reduce((sum, count) => sum + Number(count), 0) : 0,
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(stdout)?.[1] ?? 0),
    requests: Number(/(\d+) requests in/.exec(stdout)?.[1] ?? 0),
    stdout,
  };
};

describe('connection caps that stop only abuse', () => {
  it('answers 201 to 300 concurrent creates with fetch from one process, twice over its idle pool', async () => {
    const cli = await serveCli();
    const create = async (name: string) => {
      const response = await fetch(`${cli.url}/pets`, {
        method: 'POST',
        headers: { authorization, 'content-type': 'application/json' },
        body: JSON.stringify({ name, categoryId: 1 }),
      });
      await response.arrayBuffer();
      return response.status;
    };
    for (const round of [1, 2]) {
      const statuses = await Promise.all(Array.from({ length: 300 }, (_, i) => create(`Pet ${round}.${i}`)));
      expect(statuses.filter((status) => status !== 201)).toEqual([]);
    }
    const list = await fetch(`${cli.url}/pets?limit=1`, { headers: { authorization } });
    expect(list.status).toBe(200);
    await list.arrayBuffer();
  }, 60_000);

  it('gives wrk with 100 connections zero socket errors beside an idle pool of 100 keep-alive connections', async () => {
    const cli = await serveCli();
    const pool = await idlePool(Number(new URL(cli.url).port), 100);
    try {
      const wrk = await runWrk(`${new URL(cli.url).origin}/healthz`, 100, 3);
      expect(wrk.requests, wrk.stdout).toBeGreaterThan(0);
      expect(wrk.socketErrors, wrk.stdout).toBe(0);
      expect(wrk.non2xx, wrk.stdout).toBe(0);
      // Nothing needed their places: the pool is still open.
      expect(pool.filter(({ socket }) => socket.destroyed)).toEqual([]);
    } finally {
      for (const { socket } of pool) socket.destroy();
    }
  }, 60_000);

  it('closes the idle pool quietly, oldest first, to make room for wrk when the total cap is reached', async () => {
    const cli = await serveCli('--max-connections', '150', '--keep-alive-timeout', '30000');
    const pool = await idlePool(Number(new URL(cli.url).port), 100);
    const closed = pool.map(({ socket }) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    try {
      // Idle for longer than --shed-after (1 s): the pool may now be closed to make room.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const wrk = await runWrk(`${new URL(cli.url).origin}/healthz`, 100, 3);
      expect(wrk.requests, wrk.stdout).toBeGreaterThan(0);
      expect(wrk.socketErrors, wrk.stdout).toBe(0);
      expect(wrk.non2xx, wrk.stdout).toBe(0);
      await Promise.all(closed.slice(0, 50));
      // Each closed connection got its one answer and nothing it did not ask for.
      for (const { received } of pool.slice(0, 50)) expect(parseAnswers(received()).answers).toHaveLength(1);
    } finally {
      for (const { socket } of pool) socket.destroy();
    }
  }, 60_000);

  it('keeps a flood of slow connections from one remote address at its cap, and serves everyone else', async () => {
    const cli = await serveCli();
    const port = Number(new URL(cli.url).port);
    const flood = await startHostileClients({ mode: 'headers', port, connections: 400, localAddress: '127.0.0.2' });
    try {
      // 127.0.0.2 holds 128 connections (the cap per address) and no more; the rest were
      // answered 503 and closed.
      await waitForOutput(flood, /^open 128 closed 272$/m, 20_000);
      const newcomer = await exchange(port, rawCreate('From the flood'), { localAddress: '127.0.0.2', answers: 1 });
      // A newcomer from the flood's own address takes the place of its oldest slow connection.
      expect(newcomer.answers[0]?.status).toBe(201);
      for (const localAddress of ['127.0.0.1', '127.0.0.3']) {
        const created = await exchange(port, rawCreate('Rex'), { localAddress, answers: 1 });
        expect(created.answers[0]?.status).toBe(201);
      }
    } finally {
      const stats = await stopHostileClients(flood);
      expect(stats.opened - stats.closedByServer).toBeLessThanOrEqual(128);
    }
  }, 60_000);

  it('serves a normal client beside 1,000 connections sending their headers a byte a second from ten addresses', async () => {
    const cli = await serveCli('--max-connections', '900');
    const port = Number(new URL(cli.url).port);
    const slow = await startHostileClients({
      mode: 'headers',
      port,
      connections: 1_000,
      localAddresses: Array.from({ length: 10 }, (_, i) => `127.0.0.${2 + i}`),
      reopenPerSecond: 100,
    });
    try {
      // The crowd fills the total cap; what it held longest is older than --shed-after.
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) {
        const created = await exchange(port, rawCreate(`Normal ${i}`), { localAddress: '127.0.0.12', answers: 1 });
        statuses.push(created.answers[0]?.status ?? 0);
      }
      expect(statuses).toEqual(Array(20).fill(201));
    } finally {
      await stopHostileClients(slow);
    }
  }, 90_000);
});
