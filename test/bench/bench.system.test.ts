/**
 * @module Proves `npm run bench` works end to end: a quick run on small catalogues must
 * print the table, write results.json with a figure for every workload and contender, and
 * draw the chart; it loads with wrk (which npm test installs) and says whether the server or
 * the generator set the pace; it measures our PostgreSQL storage on a throwaway cluster it
 * starts (Debian's postgresql, which npm test installs); without wrk a quick run falls back to
 * autocannon and a full run refuses. It never judges the figures themselves: CI machines
 * vary too much.
 */
import { execFile, spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from '../support/tempFolder.js';
import type { BenchResults } from './results.js';
import { CONTENDERS, REPO_ROOT, STORAGES_OF } from './servers.js';
import { OPERATION_LABELS } from './workloads.js';

const run = promisify(execFile);

describe('npm run bench -- --quick', () => {
  let out: string;
  let stdout: string;
  let results: BenchResults;

  beforeAll(async () => {
    out = tempFolder({ until: 'file' });
    ({ stdout } = await run(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', '--quick', '--out', out], {
      cwd: REPO_ROOT,
      timeout: 260_000,
      maxBuffer: 16 * 2 ** 20,
    }));
    results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as BenchResults;
  }, 270_000);

  it('Should load the servers with wrk, and judge nothing in a quick run', () => {
    expect(spawnSync('wrk', ['-v']).error, 'wrk is missing: apt-get install wrk (npm test does)').toBeUndefined();
    expect(results.generator.name).toBe('wrk');
    expect(results.judgement.judged).toBe(false);
    expect(stdout).toContain('**Load generator:** wrk');
    expect(stdout).toContain('| not judged |');
  });

  it('Should report how much CPU the server and the load generator used in every run', () => {
    for (const workload of results.workloads) {
      for (const contender of CONTENDERS) {
        for (const run of workload.contenders[contender]?.runs ?? []) {
          expect(run.serverCpu, `${workload.id} on ${contender}`).toBeGreaterThan(0);
          expect(run.generatorCpu, `${workload.id} on ${contender}`).toBeGreaterThanOrEqual(0);
        }
      }
    }
    expect(stdout).toContain('**Is the generator the bottleneck?**');
    expect(stdout).toMatch(/bare node:http's server process used a median of \d+% of its core/);
  });

  it('Should measure every operation on every contender, with throughput above zero', () => {
    const operations = new Set(results.workloads.map((workload) => workload.operation));
    expect([...operations].sort()).toEqual(Object.keys(OPERATION_LABELS).sort());
    expect(results.workloads.map((workload) => workload.id)).toEqual([
      'list20@small',
      'list20@medium',
      'list20@large',
      'list20@medium@postgres',
      'list20@large@postgres',
      'walk20@medium',
      'list100sold@small',
      'list100sold@medium',
      'list100sold@large',
      'list100sold@medium@postgres',
      'list100sold@large@postgres',
      'walk100sold@medium',
      'getById@medium',
      'getById@medium@postgres',
      'mixed@medium',
      'createMemory@medium',
      'createDurable@medium',
      'createDurable@large',
      'createDurable@medium@postgres',
      'createDurable@large@postgres',
      'createGrown@medium',
    ]);
    for (const workload of results.workloads) {
      // json-server is left out of the file grown by creates: seeding it would take minutes.
      const grown = workload.operation === 'createGrown';
      for (const contender of CONTENDERS.filter((id) => STORAGES_OF[id].includes(workload.storage) && !(grown && id === 'jsonServer'))) {
        const median = workload.contenders[contender]?.median;
        expect(median?.requestsPerSecond, `${workload.id} on ${contender}`).toBeGreaterThan(0);
        expect(median?.p50, `${workload.id} on ${contender}`).toBeGreaterThanOrEqual(0);
        expect(median?.p99, `${workload.id} on ${contender}`).toBeGreaterThan(0);
      }
      // PostgreSQL's rows are ours alone: no reference has a database, so they have no ratios.
      if (workload.storage === 'postgres') {
        expect(Object.keys(workload.contenders)).toEqual(['ours']);
        continue;
      }
      expect(workload.ratioToBaseline.ours).toBeGreaterThan(0);
      if (!grown) expect(workload.ratioToBaseline.jsonServer).toBeGreaterThan(0);
      expect(workload.ratioToBaseline.floor).toBeGreaterThan(0);
      expect(workload.ratioToFloor.ours).toBeGreaterThan(0);
    }
  });

  it('Should measure start-up time and resident memory of every contender', () => {
    expect(results.startup.length).toBeGreaterThan(0);
    for (const startup of results.startup) {
      for (const contender of CONTENDERS) {
        expect(startup.contenders[contender]?.startupMs).toBeGreaterThan(0);
        expect(startup.contenders[contender]?.rssMiB).toBeGreaterThan(0);
      }
      expect(startup.oursOnPostgres?.startupMs, `${startup.animals} animals in PostgreSQL`).toBeGreaterThan(0);
      expect(startup.oursOnPostgres?.rssMiB, `${startup.animals} animals in PostgreSQL`).toBeGreaterThan(0);
    }
  });

  it('Should run PostgreSQL at its default durability, and say so', () => {
    expect(results.postgres).toMatch(/^PostgreSQL \d+.*fsync=on, synchronous_commit=on$/);
    expect(stdout).toContain('**PostgreSQL:** PostgreSQL');
    expect(stdout).toMatch(/^\| \d+k animals in PostgreSQL \| \d[\d,]* ms/m);
    expect(stdout).toContain('| durable POST on PostgreSQL at 5k within 1.3× of 2k |');
  });

  it('Should describe the machine and whether the cores were pinned', () => {
    expect(results.machine.node).toBe(process.version);
    expect(results.machine.cores).toBeGreaterThan(0);
    expect(results.machine.pinning.note).toMatch(/core|pinned/);
  });

  it('Should print the Markdown table with a row per workload and the targets', () => {
    expect(stdout).toContain('**Machine and run:**');
    for (const label of Object.values(OPERATION_LABELS)) expect(stdout).toContain(`| ${label} |`);
    expect(stdout.match(/^\| GET \/v1\/pets\?limit=20 \|/gm)).toHaveLength(3);
    expect(stdout).toContain('| Target | Measured | Holds |');
    expect(stdout).not.toMatch(/\| (failed|n\/a) \|/);
  });

  it('Should draw the SVG chart with a bar per contender and workload', async () => {
    const svg = await readFile(join(out, 'results.svg'), 'utf8');
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg.trimEnd()).toMatch(/<\/svg>$/);
    expect(svg).toContain('animal-store');
    expect(svg).toContain('json-server 0.17');
    expect(svg).toContain('@whatwg-node/server floor');
    // Two bars per workload with references (legend swatches are 14 high, bars 15); PostgreSQL's rows have none.
    const withReferences = results.workloads.filter((workload) => workload.storage !== 'postgres');
    expect(svg.match(/<rect x="[\d.]+" y="[\d.]+" width="[\d.]+" height="15"/g)).toHaveLength(2 * withReferences.length);
  });
});

describe('npm run bench without wrk', () => {
  // An empty PATH: no wrk (nor taskset or git, which the bench does without); Node is run by its full path.
  const withoutWrk = () => ({ ...process.env, PATH: tempFolder() });

  it('Should refuse a full run, saying how to install wrk', () => {
    const out = tempFolder();
    const ran = spawnSync(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', '--out', out], {
      cwd: REPO_ROOT,
      env: withoutWrk(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    expect(ran.status).toBe(2);
    expect(ran.stderr).toContain('apt-get install wrk');
    expect(ran.stderr).toContain('--generator autocannon');
  });

  it('Should measure a quick run with autocannon and judge none of it', async () => {
    const out = tempFolder();
    const { stdout } = await run(
      process.execPath,
      [
        ...['--import', 'tsx', 'test/bench/run.ts', '--quick', '--only', 'getById', '--contenders', 'ours,floor'],
        ...['--no-startup', '--no-postgres', '--out', out],
      ],
      { cwd: REPO_ROOT, env: withoutWrk(), timeout: 60_000 },
    );
    const results = JSON.parse(await readFile(join(out, 'results.json'), 'utf8')) as BenchResults;
    expect(results.generator.name).toBe('autocannon');
    expect(results.judgement.judged).toBe(false);
    expect(results.workloads.map((workload) => workload.id)).toEqual(['getById@medium']);
    expect(results.workloads[0]!.ratioToFloor.ours).toBeGreaterThan(0);
    expect(stdout).toContain('apt-get install wrk');
    expect(stdout).toContain('| not judged |');
  }, 70_000);
});
