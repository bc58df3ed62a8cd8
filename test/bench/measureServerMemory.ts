/**
 * @module What a create holds in a running server, plain or keyed: the built bin on a JSON
 * data file of 1,000 animals, `creates` creates of one kind after a warm-up of 20,000, from
 * a Node client at 50 connections; heap and typed arrays after a full collection before and
 * after (the bin runs with `--expose-gc` and reportMemoryOnSignal.ts), divided by the
 * creates. The same number of creates for each kind, not a window of time: in a window the
 * plain server makes more creates while the animals' columns double at the same counts,
 * which charges a keyed create more of the doubling. Keys are UUIDs, as our client sends
 * them, or a counter's (`k-<pid>-<n>`, a chunk's texts then differ in length). Run after
 * `npm run build`: `npx tsx test/bench/measureServerMemory.ts [creates]`. The resident set's
 * growth (RSS, after the same collections) is printed beside: it moves in the allocator's
 * and the heap's steps, so it is a rougher figure than the heap's.
 */
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { BUILT_CLI, ensureBuilt } from '../support/builtCli.js';
import { killLeftoverProcessesOnExit, type NodeProcess, spawnNode } from '../support/nodeProcess.js';
import { waitForListening } from '../support/startCli.js';
import { seedWriteCostFile } from './seedWriteCostFile.js';

const creates = Number(process.argv[2] ?? 200_000);
const WARM_UP = 20_000;
const CONNECTIONS = 50;
const KEY = 'memory-bench-key-0123456789';
killLeftoverProcessesOnExit();
ensureBuilt();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-server-memory-'));
const seeded = path.join(folder, 'seeded.json');
seedWriteCostFile(seeded, 1_000, 0);

type Kind = 'plain' | 'uuid' | 'counter';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's memory after a full collection: the line it prints on SIGUSR2 (see reportMemoryOnSignal.ts). */
const liveMemory = async (server: NodeProcess): Promise<NodeJS.MemoryUsage> => {
  const seen = server.stderr().length;
  server.child.kill('SIGUSR2');
  for (;;) {
    const line = /memory (\{.*\})/.exec(server.stderr().slice(seen));
    if (line) return JSON.parse(line[1]!) as NodeJS.MemoryUsage;
    await sleep(20);
  }
};

const measure = async (kind: Kind) => {
  const file = path.join(folder, `${kind}-${Date.now()}.json`);
  fs.copyFileSync(seeded, file);
  const server = spawnNode(
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      './test/bench/reportMemoryOnSignal.ts',
      BUILT_CLI,
      'serve',
      '--port',
      '0',
      '--data',
      file,
      '--quiet',
    ],
    { ANIMAL_STORE_API_KEYS: KEY },
  );
  const { port } = new URL(await waitForListening(server));
  let counter = 0;
  const createOne = (agent: http.Agent) =>
    new Promise<void>((resolve, reject) => {
      const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      if (kind === 'uuid') headers['idempotency-key'] = `"${randomUUID()}"`;
      if (kind === 'counter') headers['idempotency-key'] = `"k-${process.pid}-${counter++}"`;
      const request = http.request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/pets', headers, agent }, (response) => {
        response.resume();
        response.on('end', () => (response.statusCode === 201 ? resolve() : reject(new Error(`answered ${response.statusCode}`))));
      });
      request.on('error', reject);
      request.end('{"name":"Rex","categoryId":7}');
    });
  // Connections of its own for each run: the server closes idle ones after 5 s, and the
  // 6 s pause between runs would leave the next run a connection being closed under it.
  const run = async (count: number) => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    let left = count;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (left-- > 0) await createOne(agent);
      }),
    );
    agent.destroy();
  };
  const collected = async () => {
    await sleep(6_000);
    return liveMemory(server);
  };
  await run(WARM_UP);
  const before = await collected();
  const started = performance.now();
  await run(creates);
  const seconds = (performance.now() - started) / 1000;
  const after = await collected();
  server.child.kill('SIGINT');
  await server.exited;
  const held = (after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / creates;
  return { kind, held, rss: (after.rss - before.rss) / creates, perSecond: creates / seconds };
};

const results = [];
for (const kind of ['plain', 'uuid', 'counter'] as const) results.push(await measure(kind));
const plain = results[0]!.held;
for (const { kind, held, rss, perSecond } of results) {
  console.log(
    `${kind}: ${held.toFixed(1)} B a create (heap and typed arrays), ${(held / plain).toFixed(2)}x plain; ` +
      `resident ${rss.toFixed(0)} B a create; ${perSecond.toFixed(0)} creates/s`,
  );
}
fs.rmSync(folder, { recursive: true, force: true });
