/** @module The standalone server under clients that pipeline requests and never read the answers (issue 13). */
import http from 'node:http';
import { describe, expect, it } from 'vitest';
import { waitForOutput } from '../../support/nodeProcess.js';
import { residentMiB, startHostileClients, startServerInChild, stopHostileClients } from './childProcesses.js';

const KEY = 'pipelining-test-key-0123456789';

/** How long a sample may take; one that takes longer counts as taking this long. */
const GIVE_UP_MS = 5_000;

/**
 * Sends a GET every `everyMs` for `forMs`, whatever became of the earlier ones (so a stalled
 * server cannot hide behind fewer samples), and resolves with each one's milliseconds.
 */
const sampleLatency = async (url: string, everyMs: number, forMs: number): Promise<number[]> => {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  const get = () =>
    new Promise<number>((resolve, reject) => {
      const started = performance.now();
      const giveUp = setTimeout(() => {
        resolve(GIVE_UP_MS);
        request.destroy();
      }, GIVE_UP_MS);
      const request = http
        .get(url, { agent, headers: { authorization: `Bearer ${KEY}` } }, (res) => {
          res.resume();
          res.on('end', () => {
            clearTimeout(giveUp);
            if (res.statusCode === 200) resolve(performance.now() - started);
            else reject(new Error(`status ${res.statusCode}`));
          });
        })
        .on('error', (error) => {
          clearTimeout(giveUp);
          reject(error);
        });
    });
  const samples: Promise<number>[] = [];
  const started = performance.now();
  for (let i = 0; performance.now() - started < forMs; i++) {
    samples.push(get());
    await new Promise((resolve) => setTimeout(resolve, started + (i + 1) * everyMs - performance.now()));
  }
  try {
    return await Promise.all(samples);
  } finally {
    agent.destroy();
  }
};

const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.ceil((p / 100) * values.length) - 1]!;

describe('the standalone server under a pipelining flood', () => {
  it('keeps its memory bounded and a well-behaved client under 100 ms (p99) while 100 connections pipeline GETs and never read', async () => {
    const server = await startServerInChild({ keys: [KEY] });
    const pets = `${server.url}/pets`;
    await sampleLatency(pets, 10, 500); // warm up
    const before = residentMiB(server.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentMiB(server.pid))), 25);
    // 100 connections, each writing pipelined GETs as fast as the server takes them; those the
    // server closes come back, 10 a second, so the flood lasts (from another client address).
    const flood = await startHostileClients({
      mode: 'pipeline',
      port: server.port,
      connections: 100,
      reopenPerSecond: 10,
      localAddress: '127.0.0.2',
      path: '/v1/pets',
    });
    let times: number[];
    try {
      // Measured once the flood is established: its start is 100 full reads arriving at once,
      // which node:http parses whole (about a second of work) before any request is seen.
      // A server that closes none of them is measured after 10 s.
      await waitForOutput(flood, /closed (\d{3,})/, 10_000).catch(() => {});
      times = await sampleLatency(pets, 20, 8_000);
    } finally {
      clearInterval(sampler);
    }
    const during = residentMiB(server.pid);
    const stats = await stopHostileClients(flood);
    const p99 = percentile(times, 99);
    console.log(
      `pipelining flood: ${stats.opened} connections wrote ${(stats.bytesWritten / 2 ** 20).toFixed(0)} MiB of GETs, ` +
        `${stats.closedByServer} closed by the server; server memory ${before.toFixed(0)} MiB before, ` +
        `peak ${peak.toFixed(0)} MiB, ${during.toFixed(0)} MiB after 8 s of it; ` +
        `well-behaved client: ${times.length} requests, p50 ${percentile(times, 50).toFixed(1)} ms, p99 ${p99.toFixed(1)} ms`,
    );
    // Before the limits, 100 such connections grew the server by more than 1 GB and it stayed.
    expect(p99).toBeLessThan(100);
    expect(peak - before).toBeLessThan(150);
    expect(during - before).toBeLessThan(100);
    expect(stats.closedByServer).toBeGreaterThanOrEqual(100);
    const after = await fetch(`${server.url.replace(/\/v1$/, '')}/healthz`);
    expect(after.status).toBe(200);
  }, 60_000);
});
