/**
 * @module Measures the real server on PostgreSQL at 10k and 1M animals: start-up time and
 * resident memory, then POST /v1/pets and GET /v1/pets?limit=20 under wrk (50 connections),
 * the server pinned to one core and wrk to the other, the database on this machine with its
 * default durability. Not a test (timings belong to measurements, not assertions): run
 * `npx tsx test/storage/postgres/measurePostgres.ts [--rounds N] [--seconds S]`.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import type { Pet } from '../../../core/schemas/Pet.js';
import { PET_STATUSES } from '../../../core/schemas/PetStatus.js';
import { openPostgresContent } from '../../../storage/postgres/openPostgresContent.js';
import { REPO_ROOT } from '../../support/nodeProcess.js';
import { startPostgresCluster } from '../../support/postgresCluster.js';
import { withDatabase } from '../../support/testDatabase.js';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' }, seconds: { type: 'string', default: '10' } } });
const ROUNDS = Number(values.rounds);
const SECONDS = Number(values.seconds);
const KEY = 'measure-postgres-key-1';
const SERVER_CORE = '0';
const LOAD_CORE = '1';

/** Animals 1…size in chunks, generated as they are written: a million never sit in memory at once. */
async function* generated(size: number): AsyncGenerator<Pet[]> {
  for (let start = 1; start <= size; start += 10_000) {
    const chunk: Pet[] = [];
    for (let id = start; id <= Math.min(size, start + 9_999); id++) {
      chunk.push({ id, name: `Animal number ${id}`, categoryId: 1 + (id % 50), status: PET_STATUSES[id % 3]! });
    }
    yield chunk;
  }
}

/**
 * Replaces the catalogue of `url` with `size` generated animals; answers the milliseconds it
 * took. Then settles the database as a catalogue that has held that many animals for a
 * while would be: the new rows vacuumed and analysed, the dirty pages checkpointed, so the
 * aftermath of loading a million rows (autovacuum, a checkpoint's writes) does not land in
 * the measured runs.
 */
const seed = async (url: string, size: number): Promise<number> => {
  const started = performance.now();
  const content = await openPostgresContent({ connectionString: url, statementTimeout: 120_000, queryTimeout: 180_000 });
  await content.write({ nextId: size + 1, pets: generated(size), idempotencyKeys: [] }, { replace: true });
  await content.close();
  const elapsed = Math.round(performance.now() - started);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query('VACUUM ANALYZE animal_store.pets');
  await client.query('CHECKPOINT');
  await client.end();
  return elapsed;
};

/** Starts the CLI on a core of its own; answers its URL, pid, start-up time and resident memory once listening. */
const startServer = async (databaseUrl: string) => {
  const started = performance.now();
  const child = spawn(
    'taskset',
    [
      '-c',
      SERVER_CORE,
      process.execPath,
      '--import',
      'tsx',
      'adapters/cli.ts',
      'serve',
      '--port',
      '0',
      '--database',
      databaseUrl,
      '--api-key',
      KEY,
      '--quiet',
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      output += chunk;
      const found = /listening on (\S+)/.exec(output);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code} before listening:\n${output}`)));
  });
  const startupMs = Math.round(performance.now() - started);
  // taskset execs node, so the child's pid is the server's.
  const rssMb = Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))![1]) / 1024;
  return { url, startupMs, rssMb: Math.round(rssMb), stop: () => new Promise((resolve) => child.once('exit', resolve).kill('SIGTERM')) };
};

/** One wrk run on its own core; answers requests per second, p50 and p99 in milliseconds, and non-2xx answers. */
const wrk = (url: string, script: string, seconds: number) => {
  const output = execFileSync('taskset', ['-c', LOAD_CORE, 'wrk', '-t1', '-c50', `-d${seconds}s`, '--latency', '-s', script, url], {
    encoding: 'utf8',
  });
  const millis = (label: string) => {
    const [, value, unit] = new RegExp(`${label}%\\s+([\\d.]+)(us|ms|s)`).exec(output)!;
    return Number(value) * (unit === 'us' ? 0.001 : unit === 's' ? 1000 : 1);
  };
  return {
    perSecond: Math.round(Number(/Requests\/sec:\s+([\d.]+)/.exec(output)![1])),
    p50: millis(' 50'),
    p99: millis(' 99'),
    errors: Number(/Non-2xx or 3xx responses: (\d+)/.exec(output)?.[1] ?? 0),
  };
};

const median = (numbers: number[]) => [...numbers].sort((a, b) => a - b)[Math.floor(numbers.length / 2)]!;

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-measure-pg-'));
const post = path.join(folder, 'post.lua');
const get = path.join(folder, 'get.lua');
fs.writeFileSync(
  post,
  `wrk.method = "POST"\nwrk.body = '{"name":"Measured","categoryId":1}'\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["Authorization"] = "Bearer ${KEY}"\n`,
);
fs.writeFileSync(get, `wrk.headers["Authorization"] = "Bearer ${KEY}"\n`);

const cluster = await startPostgresCluster();
try {
  const admin = new pg.Client({ connectionString: cluster.url });
  await admin.connect();
  const settings = (
    await admin.query("SELECT current_setting('fsync') AS fsync, current_setting('synchronous_commit') AS synchronous_commit, version()")
  ).rows[0];
  console.log(`PostgreSQL: ${settings.version}; fsync=${settings.fsync}, synchronous_commit=${settings.synchronous_commit}`);
  console.log(
    `${os.cpus().length} cores (${os.cpus()[0]?.model}); load average before: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  const sizes = [10_000, 1_000_000];
  const urls = new Map<number, string>();
  const runs = new Map<number, Record<string, number[]>>();
  for (const size of sizes) {
    const name = `measure_${size}`;
    await admin.query(`CREATE DATABASE ${name}`);
    urls.set(size, withDatabase(cluster.url, name));
    runs.set(size, { startupMs: [], rssMb: [], getPerSecond: [], getP50: [], getP99: [], postPerSecond: [], postP50: [], postP99: [] });
  }
  // The sizes alternate within each round, so noise from the rest of the machine falls on both alike.
  for (let round = 1; round <= ROUNDS; round++) {
    for (const size of sizes) {
      const url = urls.get(size)!;
      const figures = runs.get(size)!;
      // Each run starts from `size` animals, so POST is measured at that size, not after the last run's creates.
      console.log(`seeded ${size} animals in ${await seed(url, size)} ms`);
      const server = await startServer(url);
      figures.startupMs!.push(server.startupMs);
      figures.rssMb!.push(server.rssMb);
      wrk(`${server.url}/pets?limit=20`, get, 2);
      const reads = wrk(`${server.url}/pets?limit=20`, get, SECONDS);
      const writes = wrk(`${server.url}/pets`, post, SECONDS);
      if (reads.errors + writes.errors > 0) throw new Error(`non-2xx answers: ${reads.errors} GET, ${writes.errors} POST`);
      figures.getPerSecond!.push(reads.perSecond);
      figures.getP50!.push(reads.p50);
      figures.getP99!.push(reads.p99);
      figures.postPerSecond!.push(writes.perSecond);
      figures.postP50!.push(writes.p50);
      figures.postP99!.push(writes.p99);
      await server.stop();
      console.log(
        `${size} animals, round ${round}: ${JSON.stringify({ startupMs: server.startupMs, rssMb: server.rssMb, reads, writes })}`,
      );
    }
  }
  const results = sizes.map((size) => {
    const figures = runs.get(size)!;
    const medians = Object.fromEntries(Object.entries(figures).map(([key, numbers]) => [key, median(numbers)]));
    console.log(`${size} animals, medians: ${JSON.stringify(medians)}`);
    return { size, ...medians, runs: figures };
  });
  await admin.end();
  console.log(
    `load average after: ${os
      .loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')}`,
  );
  console.log(JSON.stringify(results, null, 2));
} finally {
  await cluster.destroy();
  fs.rmSync(folder, { recursive: true, force: true });
}
