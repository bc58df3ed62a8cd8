/**
 * @module What a create costs the disk (issue 30): the built bin on a JSON data file, bytes
 * written per create as the kernel counts them for the server process (`write_bytes` of
 * `/proc/PID/io`), 50 creates one after another, plain then keyed, at 1,000, 100,000 and
 * 1,000,000 animals and at 100,000 live Idempotency-Keys; how long each start took to serve;
 * then keyed against plain creates under wrk (50 connections, a new key per keyed create),
 * in three pairs of 12 s windows on one file of 100,000 keys, keys piling up. Needs a build
 * (`npm run build`) and wrk. Run `npm run bench -- --only write-cost` or
 * `npx tsx test/bench/measureWriteCost.ts [--sizes 1000,100000,1000000] [--seconds 12] [--windows 3]`.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { StoredIdempotencyKey } from '../../core/PetStorage.js';
import type { Pet } from '../../core/schemas/Pet.js';
import { PetFileSerializer } from '../../storage/jsonFile/PetFileSerializer.js';
import { killLeftoverProcessesOnExit, spawnNode } from '../support/nodeProcess.js';
import { REPO_ROOT, waitForListening } from '../support/startCli.js';

const { values: args } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,100000,1000000' },
    keys: { type: 'string', default: '100000' },
    seconds: { type: 'string', default: '12' },
    windows: { type: 'string', default: '3' },
    creates: { type: 'string', default: '50' },
  },
});
const sizes = args.sizes.split(',').map(Number);
const liveKeys = Number(args.keys);
const seconds = Number(args.seconds);
const windows = Number(args.windows);
const creates = Number(args.creates);
const KEY = 'write-cost-bench-key-0123456789';
const BIN = path.join(REPO_ROOT, 'dist', 'adapters', 'cli.js');
const SCRIPT = path.join(REPO_ROOT, 'test', 'bench', 'wrk', 'createKeyed.lua');
const BODY = JSON.stringify({ name: 'Measured', categoryId: 7 });

/** A data file of `animals` animals and `keys` Idempotency-Keys live for a day. */
const seed = (file: string, animals: number, keys: number) => {
  const now = Date.now();
  const pets: Pet[] = Array.from({ length: animals }, (_, at) => ({
    id: at + 1,
    name: `Animal number ${at + 1}`,
    categoryId: 1 + (at % 50),
    status: 'available',
  }));
  const idempotencyKeys: StoredIdempotencyKey[] = Array.from({ length: keys }, (_, at) => ({
    scope: 'c0ffee'.repeat(11).slice(0, 64),
    key: `seeded-${at}-5f1c2a9e-0b7d-4c1e-9a2b-3d4e5f6a7b8c`,
    fingerprint: 'Qk9vVWJ6cE1hR0Z5ZFdWd1lXeHZZV1E',
    petId: (at % Math.max(1, animals)) + 1,
    createdAt: now - 1_000,
    expiresAt: now + 86_400_000,
  }));
  fs.writeFileSync(file, Buffer.concat(new PetFileSerializer().serialize({ format: 2, nextId: animals + 1, pets, idempotencyKeys })));
};

/** The bytes the kernel has counted as written to storage by the process. */
const writeBytes = (pid: number): number => Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

/** Starts the built bin on `file`; resolves with it, its URL and the seconds until it answered a read. */
const start = async (file: string) => {
  const started = performance.now();
  const server = spawnNode([BIN, 'serve', '--port', '0', '--data', file, '--api-key', KEY, '--quiet']);
  const url = await waitForListening(server);
  const answer = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
  if (answer.status !== 200) throw new Error(`the server answered ${answer.status}`);
  return { server, url, startSeconds: (performance.now() - started) / 1000 };
};

const stop = async (server: ReturnType<typeof spawnNode>) => {
  server.child.kill('SIGTERM');
  await server.exited;
};

/** Bytes written per create and milliseconds per create, over `creates` creates one after another. */
const oneAfterAnother = async (url: string, pid: number, keyed: boolean) => {
  const before = writeBytes(pid);
  const started = performance.now();
  for (let count = 0; count < creates; count++) {
    const headers: Record<string, string> = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
    if (keyed) headers['idempotency-key'] = `"one-${count}-${process.hrtime.bigint()}"`;
    const answer = await fetch(`${url}/pets`, { method: 'POST', headers, body: BODY });
    if (answer.status !== 201) throw new Error(`a create answered ${answer.status}`);
    await answer.arrayBuffer();
  }
  return { bytes: (writeBytes(pid) - before) / creates, ms: (performance.now() - started) / creates };
};

/** Creates a second under wrk for `seconds`, plain or keyed. */
const wrk = (url: string, keyed: boolean): number => {
  const answer = spawnSync(
    'wrk',
    ['--threads', '1', '--connections', '50', '--duration', `${seconds}s`, '--timeout', '10s', '-s', SCRIPT].concat([
      '-H',
      `Authorization: Bearer ${KEY}`,
      '-H',
      'Content-Type: application/json',
      `${url}/pets`,
    ]),
    { encoding: 'utf8', env: { ...process.env, BENCH_BODY: BODY, BENCH_KEYED: keyed ? '1' : '0' } },
  );
  const line = /BENCH_RESULT (.*)/.exec(answer.stdout)?.[1];
  if (!line) throw new Error(`wrk said: ${answer.stdout}${answer.stderr}`);
  const result = JSON.parse(line) as { requests: number; durationUs: number; statusErrors: number; timeouts: number };
  if (result.statusErrors + result.timeouts > 0)
    throw new Error(`wrk met ${result.statusErrors} error answers and ${result.timeouts} timeouts`);
  return result.requests / (result.durationUs / 1e6);
};

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

/** Measures and prints the Markdown tables; resolves with the rows. */
export const measureWriteCost = async (log: (line: string) => void = console.log) => {
  if (!fs.existsSync(BIN)) throw new Error(`no build: run \`npm run build\` first (${BIN} is missing)`);
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-write-cost-'));
  try {
    const cases = [...sizes.map((animals) => ({ animals, keys: 0 })), { animals: 1_000, keys: 1_000 }, { animals: 1_000, keys: liveKeys }];
    if (sizes.includes(1_000_000)) cases.push({ animals: 1_000_000, keys: liveKeys });
    log('| animals | live keys | file | start (serves) | plain create: written | keyed create: written | plain: ms | keyed: ms |');
    log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const rows = [];
    for (const { animals, keys } of cases) {
      const file = path.join(folder, `animals-${animals}-${keys}.json`);
      seed(file, animals, keys);
      const size = fs.statSync(file).size;
      const { server, url, startSeconds } = await start(file);
      // Let the start's own work (the background encoding of the file's bytes) settle first.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const plain = await oneAfterAnother(url, server.child.pid!, false);
      const keyed = await oneAfterAnother(url, server.child.pid!, true);
      await stop(server);
      fs.rmSync(file, { force: true });
      rows.push({ animals, keys, size, startSeconds, plain, keyed });
      log(
        `| ${animals.toLocaleString('en')} | ${keys.toLocaleString('en')} | ${(size / 1e6).toFixed(1)} MB | ${startSeconds.toFixed(2)} s | ${kib(plain.bytes)} | ${kib(keyed.bytes)} | ${plain.ms.toFixed(1)} | ${keyed.ms.toFixed(1)} |`,
      );
    }
    const file = path.join(folder, 'load.json');
    seed(file, 100_000, liveKeys);
    const { server, url } = await start(file);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    log('');
    log(`| window (${seconds} s, 50 connections) | plain creates/s | keyed creates/s | keyed/plain | server RSS after |`);
    log('| ---: | ---: | ---: | ---: | ---: |');
    const load = [];
    for (let window = 1; window <= windows; window++) {
      const plain = wrk(url, false);
      const keyed = wrk(url, true);
      const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${server.child.pid}/status`, 'utf8'))![1]) / 1024;
      load.push({ plain, keyed, rss });
      log(`| ${window} | ${Math.round(plain)} | ${Math.round(keyed)} | ${(keyed / plain).toFixed(2)} | ${rss.toFixed(0)} MB |`);
    }
    await stop(server);
    return { rows, load };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  killLeftoverProcessesOnExit();
  await measureWriteCost();
}
