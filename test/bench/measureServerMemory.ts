/**
 * @module What a create holds in a running server, plain or keyed: the built bin on a JSON
 * data file of 1,000 animals, `creates` creates of one kind after a warm-up of 20,000, from
 * a Node client at 50 connections; heap and typed arrays after a full collection before and
 * after (the bin runs with `--expose-gc` and reportMemoryOnSignal.ts), divided by the
 * creates. The same number of creates for each kind, not a window of time: in a window the
 * plain server makes more creates while the animals' columns double at the same counts,
 * which charges a keyed create more of the doubling. Keys are UUIDs, as our client sends
 * them, or a counter's (`k-<pid>-<n>`, a chunk's texts then differ in length). Run after
 * `npm run build`: `npx tsx test/bench/measureServerMemory.ts [creates]`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { seedWriteCostFile } from './seedWriteCostFile.js';

const creates = Number(process.argv[2] ?? 200_000);
const WARM_UP = 20_000;
const CONNECTIONS = 50;
const KEY = 'memory-bench-key-0123456789';
const root = path.resolve(import.meta.dirname, '../..');
const bin = path.join(root, 'dist/bin/animal-store.js');
if (!fs.existsSync(bin)) throw new Error(`Run npm run build first: ${bin} is missing.`);
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-server-memory-'));
const seeded = path.join(folder, 'seeded.json');
seedWriteCostFile(seeded, 1_000, 0);

type Kind = 'plain' | 'uuid' | 'counter';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The memory lines the server prints on SIGUSR2 (see reportMemoryOnSignal.ts), as they come. */
const memoryOf = (child: ChildProcess): NodeJS.MemoryUsage[] => {
  const lines: NodeJS.MemoryUsage[] = [];
  child.stderr!.setEncoding('utf8').on('data', (text: string) => {
    for (const line of text.split('\n')) if (line.startsWith('memory ')) lines.push(JSON.parse(line.slice(7)));
  });
  return lines;
};

const measure = async (kind: Kind) => {
  const file = path.join(folder, `${kind}-${Date.now()}.json`);
  fs.copyFileSync(seeded, file);
  const port = 18_000 + Math.floor(Math.random() * 1_000);
  const child = spawn(
    process.execPath,
    [
      '--expose-gc',
      '--import',
      'tsx',
      '--import',
      './test/bench/reportMemoryOnSignal.ts',
      bin,
      '--data',
      file,
      '--port',
      String(port),
      '--quiet',
    ],
    { cwd: root, env: { ...process.env, ANIMAL_STORE_API_KEYS: KEY }, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  const memory = memoryOf(child);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  let counter = 0;
  const createOne = () =>
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
  const run = async (count: number) => {
    let left = count;
    await Promise.all(
      Array.from({ length: CONNECTIONS }, async () => {
        while (left-- > 0) await createOne();
      }),
    );
  };
  const collected = async (count: number) => {
    await sleep(6_000);
    child.kill('SIGUSR2');
    while (memory.length < count) await sleep(50);
  };
  for (let tries = 0; ; tries++) {
    try {
      await run(1);
      break;
    } catch (error) {
      if (tries > 200) throw error;
      await sleep(100);
    }
  }
  await run(WARM_UP);
  await collected(1);
  const started = performance.now();
  await run(creates);
  const seconds = (performance.now() - started) / 1000;
  await collected(2);
  agent.destroy();
  child.kill('SIGINT');
  await new Promise((resolve) => child.on('exit', resolve));
  const [before, after] = memory as [NodeJS.MemoryUsage, NodeJS.MemoryUsage];
  const held = (after.heapUsed - before.heapUsed + after.arrayBuffers - before.arrayBuffers) / creates;
  return { kind, held, perSecond: creates / seconds };
};

const results = [];
for (const kind of ['plain', 'uuid', 'counter'] as const) results.push(await measure(kind));
const plain = results[0]!.held;
for (const { kind, held, perSecond } of results) {
  console.log(
    `${kind}: ${held.toFixed(1)} B a create (heap and typed arrays), ${(held / plain).toFixed(2)}x plain, ${perSecond.toFixed(0)} creates/s`,
  );
}
fs.rmSync(folder, { recursive: true, force: true });
