/**
 * @module The standalone server under `ulimit -n 1024` against 1,100 connections trickling a
 * body (issue 13): before the connection caps, they took every open file, and every other
 * client was refused for as long as they stayed.
 */
import fs from 'node:fs';
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { type NodeProcess, waitForOutput } from '../../support/nodeProcess.js';
import { until } from '../../support/serverProcess.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { startHostileClients, startServerInChild, stopHostileClients } from './childProcesses.js';
import { exchange, parseAnswers } from './rawHttp.js';

const KEY = 'open-files-test-key-0123456789';
const create = (name: string) => {
  const body = JSON.stringify({ name, categoryId: 1 });
  return `POST /v1/pets HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
};

/** How many of the hostile clients' connections are open, by their last report. */
const openNow = (clients: NodeProcess) => Number([...clients.stdout().matchAll(/open (\d+)/g)].at(-1)?.[1] ?? 0);

describe('the standalone server with 1,024 open files', () => {
  it('sheds 1,100 trickling connections from one address and goes on serving everyone else, its data file included', async () => {
    const server = await startServerInChild({ keys: [KEY], dataFile: tempDataFile() }, { openFiles: 1024 });
    const tricklers = await startHostileClients({ mode: 'trickle', port: server.port, connections: 1_100, localAddress: '127.0.0.2' });
    try {
      // The cap per address (128 by default) closes the rest as they come; those it let in trickle on.
      await waitForOutput(tricklers, /^open 128 closed 972$/m, 20_000);
      const health = await exchange(server.port, 'GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n', { answers: 1 });
      expect(health.answers[0]?.status).toBe(200);
      const created = await exchange(server.port, create('Rex'), { answers: 1 });
      expect(created.answers[0]?.status).toBe(201);
    } finally {
      await stopHostileClients(tricklers);
    }
    expect(server.stderr()).toBe('');
  }, 60_000);

  it('keeps its open files for its clients and its data file when 1,100 connections from many addresses fill the total cap', async () => {
    const server = await startServerInChild({ keys: [KEY], dataFile: tempDataFile() }, { openFiles: 1024 });
    // A client already connected before the crowd arrives, kept busy by a request every 200 ms:
    // it always has a request younger than `shedAfter` (1 s), so it is never the one to make room.
    const client = net.connect(server.port, '127.0.0.1');
    let received = '';
    let closedBy = '';
    client.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    client.on('error', (error) => (closedBy ||= error.message));
    client.on('close', () => (closedBy ||= 'the server closed the kept connection'));
    const keepAlive = setInterval(() => client.writable && client.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n'), 200);
    const crowd: NodeProcess[] = [];
    try {
      // 11 addresses with 100 connections each: under the cap per address, over the total of 896 (7/8 of 1,024).
      for (let i = 0; i < 11; i++) {
        crowd.push(await startHostileClients({ mode: 'trickle', port: server.port, connections: 100, localAddress: `127.0.1.${i + 1}` }));
      }
      // Each process reports what it has open every half second; until all have, the sum says too little.
      const crowdOpen = () => crowd.reduce((sum, clients) => sum + openNow(clients), 0);
      const allReported = () => crowd.every((clients) => /open \d+/.test(clients.stdout()));
      await until(() => allReported() && crowdOpen() <= 896, 'the server has shed what the total cap does not hold', 20_000);
      const before = parseAnswers(received).answers.length;
      client.write(create('Kept'));
      // Answers come in order: the create's is the first after `before` that is not a /healthz 200.
      const since = () => parseAnswers(received).answers.slice(before);
      await until(() => closedBy !== '' || since().some((answer) => answer.status !== 200), 'the create was answered', 20_000);
      expect(closedBy).toBe('');
      expect(since().map((answer) => answer.status)).toContain(201);
    } finally {
      clearInterval(keepAlive);
      client.destroy();
      for (const clients of crowd) await stopHostileClients(clients);
    }
    expect(server.stderr()).toBe('');
  }, 90_000);

  it('keeps files for itself and its data file while 1,100 connections at once are refused and never read their answer', async () => {
    // No connection may be closed for room during the test (however slowly the machine goes): past the cap, every new one is refused.
    const server = await startServerInChild({ keys: [KEY], dataFile: tempDataFile(), shedAfter: 60_000 }, { openFiles: 1024 });
    const client = net.connect(server.port, '127.0.0.1');
    let received = '';
    client.setEncoding('latin1').on('data', (chunk: string) => (received += chunk));
    const keepAlive = setInterval(() => client.write('GET /healthz HTTP/1.1\r\nHost: a\r\n\r\n'), 200);
    let mostOpen = 0;
    const count = setInterval(() => {
      mostOpen = Math.max(mostOpen, fs.readdirSync(`/proc/${server.pid}/fd`).length);
    }, 2);
    const crowd: net.Socket[] = [];
    try {
      // None may be closed for room: past the total cap of 896, each new connection is refused.
      for (let address = 1; address <= 11; address++) {
        for (let i = 0; i < 100; i++) {
          const socket = net.connect({ port: server.port, host: '127.0.0.1', localAddress: `127.0.3.${address}` });
          socket.on('error', () => {});
          socket.on('connect', () => {
            socket.write('POST /v1/pets HTTP/1.1\r\nHost: a\r\nContent-Length: 100\r\n\r\n{');
            socket.pause();
          });
          crowd.push(socket);
        }
      }
      await until(() => crowd.every((socket) => socket.readyState !== 'opening'), 'every connection was made', 20_000);
      const before = parseAnswers(received).answers.length;
      client.write(create('Kept'));
      // The create and four checks of /healthz after it: no file the data file needed was missing.
      await until(() => parseAnswers(received).answers.length >= before + 5, 'the create and four checks were answered', 20_000);
      const statuses = parseAnswers(received)
        .answers.slice(before)
        .map((answer) => answer.status);
      expect(statuses).toContain(201);
      expect(statuses).not.toContain(503);
      // Refusals being written hold at most a sixteenth of the cap (56): with the process's own files, well under 1,024.
      expect(mostOpen).toBeGreaterThan(896);
      expect(mostOpen).toBeLessThan(1_000);
    } finally {
      clearInterval(count);
      clearInterval(keepAlive);
      client.destroy();
      for (const socket of crowd) socket.destroy();
    }
    expect(server.stderr()).toBe('');
  }, 60_000);
});
