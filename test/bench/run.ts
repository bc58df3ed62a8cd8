/**
 * @module `npm run bench`: our standalone server, the two references (bare node:http and a
 * server on @whatwg-node/server doing the same minimal work: the library floor) and
 * json-server 0.17, started one after another on 127.0.0.1 on the same animals, pinned to
 * one core, and loaded with wrk from another, round after round, while /proc tells how much
 * CPU the server and the generator used; medians, our ratios to bare and to the floor, and
 * issue 10's targets go to a Markdown table (stdout), results.json, results.md and a chart
 * (docs/images/bench.svg, shown in docs/performance.md).
 *
 *   npm run bench                      the full run (about 30 minutes); needs wrk (`apt-get install wrk`)
 *   npm run bench -- --quick           a short run that proves the bench works end to end
 *                                      (with autocannon when wrk is missing; never judged)
 *   npm run bench -- --out DIR         write results.json/.svg/.md to DIR instead of test/bench and docs/images
 *   npm run bench -- --seconds 10 --rounds 3 --warmup 2 --connections 50
 *   npm run bench -- --generator autocannon
 *                                      measure with autocannon in this process (figures not judged)
 *   npm run bench -- --database postgres://…
 *                                      measure our PostgreSQL storage on that database (schema
 *                                      animal_store_bench, replaced at each start) instead of on a
 *                                      throwaway cluster the bench starts (Debian's postgresql package)
 *   npm run bench -- --no-postgres     leave PostgreSQL out
 *   npm run bench -- --only list20@medium,createDurable --contenders ours --profile DIR
 *                                      profile our server (node --cpu-prof) on some workloads;
 *                                      read the profiles with test/bench/topFunctions.ts
 *   npm run bench -- --from-source     run our server and the references through tsx instead
 *                                      of a tsc build (never so with --profile or --our-source)
 *   npm run bench -- --our-source DIR  build our server from a copy of the repository instead
 *                                      (to measure a proposed change before making it)
 *   npm run bench -- --render FILE     redraw the table and chart from an earlier results.json
 *   npm run bench -- --only soak       the ten-minute soak of issue 24 (`npm run bench:soak`, whose
 *                                      flags it takes no other way): memory and p99 under mixed traffic
 *   npm run bench -- --only sync       only how long a new kiosk takes to pull a hub of 100,000
 *                                      animals (issue 20: under 30 s), with the CLI run through tsx
 *   npm run bench -- --only browser    only the service worker over IndexedDB in Chromium: a page of
 *                                      20 from 10,000 animals and a durable create (p50, p99)
 *   npm run bench -- --only write-cost what a create costs the disk (issue 30): bytes written per
 *                                      create (/proc/PID/io) at 1k, 100k and 1M animals and 100,000
 *                                      keys, plain and keyed, and keyed/plain under wrk in three
 *                                      windows side by side, then in turns of 2 s beside a
 *                                      second plain server, whose ratio to the first is the noise
 *                                      (test/bench/measureWriteCost.ts; builds first; with --quick,
 *                                      1,000 animals and one 2 s window)
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killLeftoverProcessesOnExit } from '../support/nodeProcess.js';
import type { BenchContext } from './benchContext.js';
import { type BenchDataFiles, writeBenchData } from './benchData.js';
import { type BenchDatabase, openBenchDatabase } from './benchDatabase.js';
import { chooseLoadGenerator, GENERATORS, type GeneratorName, type LoadGenerator } from './loadGenerator.js';
import { describeMachine, pinLoadGenerator } from './machine.js';
import { markdownReport } from './markdownReport.js';
import { measureBrowserWorker } from './measureBrowserWorker.js';
import { measureStartup } from './measureStartup.js';
import { measureSyncPull, SYNC_PULL_TARGET_SECONDS } from './measureSyncPull.js';
import { computeRatios, GROUPS, inTableOrder, measureThroughput } from './measureThroughput.js';
import { type BenchResults, formatCount, judgeTargets, type Scale } from './results.js';
import { CONTENDERS, type ContenderId, compileServers, REPO_ROOT } from './servers.js';
import { svgChart } from './svgChart.js';
import type { Operation } from './workloads.js';

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    generator: { type: 'string' },
    database: { type: 'string' },
    'no-postgres': { type: 'boolean', default: false },
    only: { type: 'string' },
    contenders: { type: 'string' },
    profile: { type: 'string' },
    'from-source': { type: 'boolean', default: false },
    'our-source': { type: 'string' },
    'no-startup': { type: 'boolean', default: false },
    render: { type: 'string' },
  },
});

const quick = args.quick;
const number = (text: string | undefined, fallback: number, name: string, { zero = false } = {}) => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zero)) {
    throw new Error(`--${name} must be a ${zero ? 'non-negative' : 'positive'} number, not ${text}`);
  }
  return value;
};
const settings = {
  connections: Math.round(number(args.connections, 50, 'connections')),
  // A quick run's loads last a second, without a warm-up: shorter ones can end before a
  // server on a busy machine answers at all, and its figures are not judged anyway.
  seconds: number(args.seconds, quick ? 1 : 5, 'seconds'),
  warmupSeconds: number(args.warmup, quick ? 0 : 1, 'warmup', { zero: true }),
  rounds: Math.min(20, Math.round(number(args.rounds, quick ? 1 : 5, 'rounds'))),
};
if (args.generator !== undefined && !(GENERATORS as readonly string[]).includes(args.generator)) {
  throw new Error(`--generator must be one of ${GENERATORS.join(', ')}, not ${args.generator}`);
}
const SIZES: Record<Scale, number> = quick
  ? { small: 1_000, medium: 2_000, large: 5_000 }
  : { small: 1_000, medium: 10_000, large: 1_000_000 };
const STARTUP_SIZES = args['no-startup'] ? [] : quick ? [1_000, 5_000] : [1_000, 100_000, 1_000_000];
const STARTUP_REPEATS = quick ? 1 : Math.min(3, settings.rounds);
const outDir = resolve(args.out ?? join(dirname(fileURLToPath(import.meta.url))));
// The chart the README shows is published with it, so it lives under docs/; --out keeps a run's files together.
const chartFile = args.out ? join(outDir, 'results.svg') : fileURLToPath(new URL('../../docs/images/bench.svg', import.meta.url));
const only = args.only
  ?.split(',')
  .map((item) => item.trim())
  .filter(Boolean);
const selected = (operation: Operation, scale: Scale) =>
  !only || only.some((item) => item === operation || item === `${operation}@${scale}` || item === scale);
const contenders: ContenderId[] = args.contenders ? CONTENDERS.filter((id) => args.contenders!.split(',').includes(id)) : [...CONTENDERS];
const profileDir = args.profile === undefined ? undefined : resolve(args.profile);

/** The chart's one line about the machine: short enough for its width. */
const chartSubtitle = ({ machine, settings, quick, generator }: BenchResults) =>
  `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${generator.name}; ${machine.pinning.applied ? 'server and load generator on separate cores' : 'not pinned'}; ` +
  `${settings.connections} connections, median of ${settings.rounds} run${settings.rounds === 1 ? '' : 's'} of ${settings.seconds} s` +
  (quick ? ' (QUICK RUN)' : '');

const T0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);

/** The commit of the code under test, so a results.json says what it measured. */
const sourceOf = (root: string): string => {
  const git = (...gitArgs: string[]) => spawnSync('git', ['-C', root, ...gitArgs], { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const dirty = git('status', '--porcelain', '--', 'core', 'storage', 'adapters').stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}`;
};

/** Writes results.json, results.md and results.svg, and prints the table. */
const writeOutputs = async (results: BenchResults) => {
  const report = markdownReport(results);
  await mkdir(outDir, { recursive: true });
  await writeFile(join(outDir, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  await writeFile(join(outDir, 'results.md'), report);
  await writeFile(chartFile, svgChart(results, chartSubtitle(results)));
  process.stdout.write(report);
  log(`wrote results.json and results.md to ${outDir}, the chart to ${chartFile}`);
};

/** Redraws from an earlier results.json; one from before the bench recorded its generator is autocannon's and not judged. */
const render = async (file: string) => {
  const results = JSON.parse(await readFile(resolve(file), 'utf8')) as BenchResults;
  results.generator ??= { name: 'autocannon', version: 'unknown', note: 'autocannon (recorded before the bench named its generator)' };
  results.judgement ??= { judged: false, why: 'the run was measured with autocannon' };
  for (const workload of results.workloads) {
    workload.storage ??= workload.operation === 'createMemory' ? 'memory' : 'file';
    computeRatios(workload);
  }
  results.workloads.sort(inTableOrder);
  results.targets = judgeTargets(results);
  return writeOutputs(results);
};

const main = async () => {
  if (args.render) return render(args.render);
  if (only?.length === 1 && only[0] === 'soak') {
    const soak = spawnSync(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./soak.ts', import.meta.url))], {
      stdio: 'inherit',
    });
    process.exitCode = soak.status ?? 1;
    return;
  }
  if (only?.length === 1 && only[0] === 'write-cost') {
    const build = spawnSync('npm', ['run', 'build'], { cwd: REPO_ROOT, stdio: 'inherit' });
    if (build.status !== 0) {
      process.exitCode = 1;
      return;
    }
    const { measureWriteCost, DEFAULT_WRITE_COST, QUICK_WRITE_COST } = await import('./measureWriteCost.js');
    await measureWriteCost(args.quick ? QUICK_WRITE_COST : DEFAULT_WRITE_COST);
    return;
  }
  if (only?.length === 1 && only[0] === 'sync') {
    const folder = await mkdtemp(join(tmpdir(), 'animal-store-bench-sync-'));
    try {
      const seconds = await measureSyncPull(folder, log);
      if (seconds >= SYNC_PULL_TARGET_SECONDS) process.exitCode = 1;
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    return;
  }
  if (only?.length === 1 && only[0] === 'browser') {
    const folder = await mkdtemp(join(tmpdir(), 'animal-store-bench-browser-'));
    try {
      await measureBrowserWorker(folder, log, quick ? 1_000 : 10_000);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
    return;
  }
  const startedAt = new Date().toISOString();
  let generator: LoadGenerator;
  try {
    generator = chooseLoadGenerator(args.generator as GeneratorName | undefined, quick);
  } catch (error) {
    log((error as Error).message);
    process.exitCode = 2;
    return;
  }
  const pinning = pinLoadGenerator();
  const machine = describeMachine(pinning);
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${pinning.note}; ${generator.note}`);
  if (!pinning.applied) log(`WARNING: ${pinning.note}; the servers and the load generator share cores, figures are noisier`);
  if (!generator.judgeable) log(`WARNING: ${generator.note}`);
  if (profileDir) await mkdir(profileDir, { recursive: true });

  const temporary = await mkdtemp(join(tmpdir(), 'animal-store-bench-'));
  // Also when stopped by a signal: the exit handlers kill the servers and remove the folder.
  process.once('exit', () => rmSync(temporary, { recursive: true, force: true }));
  const ourSource = args['our-source'] === undefined ? undefined : resolve(args['our-source']);
  // Our server as the package publishes it (`npx animal-store` runs the tsc build bundled), and the
  // references compiled alike: tsx-run TypeScript is not what users run.
  const compiledDir =
    !args['from-source'] || profileDir || ourSource ? await compileServers(join(temporary, 'build'), ourSource) : undefined;
  if (compiledDir) log(`our server and the references run from a tsc build in ${compiledDir}`);
  let database: BenchDatabase | undefined;
  if (!args['no-postgres'] && contenders.includes('ours')) {
    try {
      database = await openBenchDatabase(args.database);
    } catch (error) {
      log(`PostgreSQL: ${(error as Error).message} (or run with --no-postgres)`);
      process.exitCode = 2;
      return;
    }
    log(database.description);
  }
  let starts = 0;
  const dataFiles = new Map<number, Promise<BenchDataFiles>>();
  let failed = false;
  const context: BenchContext = {
    pinning,
    contenders,
    dataFor: (animals) => {
      let files = dataFiles.get(animals);
      if (!files) {
        log(`writing ${formatCount(animals)} animals`);
        files = writeBenchData(join(temporary, 'data'), animals);
        dataFiles.set(animals, files);
      }
      return files;
    },
    workDir: () => join(temporary, `start-${++starts}`),
    compiledDir,
    profileDir,
    ...(database ? { database } : {}),
    log,
    failed: () => {
      failed = true;
    },
  };

  const startup = await measureStartup(context, STARTUP_SIZES, STARTUP_REPEATS);
  const workloads = await measureThroughput(context, {
    groups: GROUPS.filter((group) => group.storage !== 'postgres' || database !== undefined),
    sizes: SIZES,
    selected,
    rounds: settings.rounds,
    warmupSeconds: settings.warmupSeconds,
    load: { connections: settings.connections, seconds: settings.seconds },
    generator,
  });
  const judged = generator.judgeable && !quick;
  const results: BenchResults = {
    startedAt,
    finishedAt: new Date().toISOString(),
    quick,
    source: sourceOf(ourSource ?? REPO_ROOT),
    machine,
    generator: { name: generator.name, version: generator.version, note: generator.note },
    judgement: {
      judged,
      why: judged
        ? `measured with ${generator.name}, a full run`
        : quick
          ? 'a quick run measures small catalogues for a second each, without a warm-up'
          : `the run was measured with ${generator.name}, not wrk`,
    },
    settings: {
      ...settings,
      ourServer: ourSource
        ? `node bin/animal-store.js (tsc build of ${ourSource}, bundled)`
        : compiledDir
          ? 'node bin/animal-store.js (the tsc build bundled, as published)'
          : 'node --import tsx adapters/cli.ts',
    },
    ...(database ? { postgres: database.description } : {}),
    workloads,
    startup,
    targets: [],
  };
  await database?.close();
  results.targets = judgeTargets(results);
  await writeOutputs(results);
  // A full run also measures the catalogue in the browser (logged; its figures are in docs/browser.md).
  if (!only && !quick)
    await measureBrowserWorker(join(temporary, 'browser'), log).catch((error: unknown) => {
      log(`the browser part failed: ${(error as Error).message}`);
      failed = true;
    });
  if (failed) {
    log('some runs failed; see above');
    process.exitCode = 1;
  }
};

killLeftoverProcessesOnExit();
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => process.exit(130));
await main();
