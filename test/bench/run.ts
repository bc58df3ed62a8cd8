/**
 * @module `npm run bench`: our standalone server, a bare node:http baseline and json-server
 * 0.17, started one after another on 127.0.0.1 on the same animals and loaded with
 * autocannon, round after round; medians and ratios to the baseline go to a Markdown table
 * (stdout), results.json and a chart (docs/images/bench.svg, shown in the README).
 *
 *   npm run bench                      the full run (about 20 minutes)
 *   npm run bench -- --quick           a short run that proves the bench works end to end
 *   npm run bench -- --out DIR         write results.json/.svg/.md to DIR instead of test/bench and docs/images
 *   npm run bench -- --seconds 10 --rounds 3 --warmup 2 --connections 50
 *   npm run bench -- --only list20@medium,createDurable --contenders ours --profile DIR
 *                                      profile our server (node --cpu-prof) on some workloads;
 *                                      read the profiles with test/bench/topFunctions.ts
 *   npm run bench -- --compiled        run our server from a tsc build instead of through tsx
 *                                      (always so with --profile)
 *   npm run bench -- --our-source DIR  build our server from a copy of the repository instead
 *                                      (to measure a proposed change before making it)
 *   npm run bench -- --render FILE     redraw the table and chart from an earlier results.json
 */
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type BenchDataFiles, writeBenchData } from './benchData.js';
import { describeMachine, pinLoadGenerator } from './machine.js';
import { markdownReport } from './markdownReport.js';
import {
  type BenchResults,
  type ContenderFigures,
  formatCount,
  judgeTargets,
  median,
  medianFigures,
  type Scale,
  type StartupResult,
  type WorkloadResult,
} from './results.js';
import { CONTENDER_LABELS, CONTENDERS, type ContenderId, compileOurServer, REPO_ROOT, startServer } from './servers.js';
import { svgChart } from './svgChart.js';
import { checkAnswer, type LoadFigures, OPERATION_LABELS, type Operation, runLoad, seedOverHttp } from './workloads.js';

/** Servers are started once per group and run its operations in order (creates last). */
interface Group {
  scale: Scale;
  store: 'file' | 'memory';
  operations: Operation[];
}

const GROUPS: Group[] = [
  { scale: 'medium', store: 'file', operations: ['list20', 'list100sold', 'getById', 'createDurable'] },
  { scale: 'medium', store: 'memory', operations: ['createMemory'] },
  { scale: 'small', store: 'file', operations: ['list20', 'list100sold'] },
  { scale: 'large', store: 'file', operations: ['list20', 'list100sold', 'createDurable'] },
];

const { values: args } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    out: { type: 'string' },
    seconds: { type: 'string' },
    warmup: { type: 'string' },
    rounds: { type: 'string' },
    connections: { type: 'string', default: '50' },
    only: { type: 'string' },
    contenders: { type: 'string' },
    profile: { type: 'string' },
    compiled: { type: 'boolean', default: false },
    'our-source': { type: 'string' },
    'no-startup': { type: 'boolean', default: false },
    render: { type: 'string' },
  },
});

const quick = args.quick;
const positive = (text: string | undefined, fallback: number, name: string) => {
  const value = text === undefined ? fallback : Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} must be a positive number, not ${text}`);
  return value;
};
const settings = {
  connections: Math.round(positive(args.connections, 50, 'connections')),
  seconds: positive(args.seconds, quick ? 0.3 : 5, 'seconds'),
  warmupSeconds: positive(args.warmup, quick ? 0.1 : 1, 'warmup'),
  rounds: Math.min(20, Math.round(positive(args.rounds, quick ? 1 : 5, 'rounds'))),
};
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
const chartSubtitle = ({ machine, settings, quick }: BenchResults) =>
  `${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${machine.pinning.applied ? 'server and autocannon on separate cores' : 'not pinned'}; ` +
  `${settings.connections} connections, median of ${settings.rounds} run${settings.rounds === 1 ? '' : 's'} of ${settings.seconds} s` +
  (quick ? ' (QUICK RUN)' : '');

const T0 = performance.now();
const log = (line: string) => process.stderr.write(`[bench ${((performance.now() - T0) / 1000).toFixed(1)}s] ${line}\n`);
const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 6).join(' | ');

/** The commit of the code under test, so a results.json says what it measured. */
const sourceOf = (root: string): string => {
  const git = (...gitArgs: string[]) => spawnSync('git', ['-C', root, ...gitArgs], { encoding: 'utf8' });
  const head = git('rev-parse', '--short', 'HEAD');
  if (head.status !== 0) return 'unknown (not a git checkout)';
  const dirty = git('status', '--porcelain', '--', 'core', 'storage', 'adapters').stdout.trim() !== '';
  return `${head.stdout.trim()}${dirty ? ' + uncommitted changes' : ''}`;
};

/** The table's order: each operation together, small to large catalogues. */
const OPERATION_ORDER: Operation[] = ['list20', 'list100sold', 'getById', 'createMemory', 'createDurable'];
const SCALE_ORDER: Scale[] = ['small', 'medium', 'large'];
const inTableOrder = (a: WorkloadResult, b: WorkloadResult) =>
  OPERATION_ORDER.indexOf(a.operation) - OPERATION_ORDER.indexOf(b.operation) ||
  SCALE_ORDER.indexOf(a.scale) - SCALE_ORDER.indexOf(b.scale);

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

const main = async () => {
  if (args.render) {
    const results = JSON.parse(await readFile(resolve(args.render), 'utf8')) as BenchResults;
    results.workloads.sort(inTableOrder);
    results.targets = judgeTargets(results);
    return writeOutputs(results);
  }
  const startedAt = new Date().toISOString();
  const pinning = pinLoadGenerator();
  const machine = describeMachine(pinning);
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${pinning.note}`);
  if (!pinning.applied) log(`WARNING: ${pinning.note}; the server and autocannon share cores, figures are noisier`);
  if (profileDir) await mkdir(profileDir, { recursive: true });

  const temporary = await mkdtemp(join(tmpdir(), 'animal-store-bench-'));
  // Also when stopped by a signal (servers.ts then exits after killing the servers).
  const removeTemporary = () => rmSync(temporary, { recursive: true, force: true });
  process.once('exit', removeTemporary);
  const ourSource = args['our-source'] === undefined ? undefined : resolve(args['our-source']);
  const compiledDir = args.compiled || profileDir || ourSource ? await compileOurServer(join(temporary, 'build'), ourSource) : undefined;
  if (compiledDir) log(`our server runs from a tsc build in ${compiledDir}`);
  const ourBuild = compiledDir ? { compiledDir } : {};
  let starts = 0;
  const workDir = () => join(temporary, `start-${++starts}`);
  const dataFiles = new Map<number, Promise<BenchDataFiles>>();
  const dataFor = (animals: number) => {
    let files = dataFiles.get(animals);
    if (!files) {
      log(`writing ${formatCount(animals)} animals`);
      files = writeBenchData(join(temporary, 'data'), animals);
      dataFiles.set(animals, files);
    }
    return files;
  };
  let failed = false;

  try {
    // Start-up time and memory: spawn → "listening", then VmRSS, on the durable store.
    const startup: StartupResult[] = [];
    for (const animals of STARTUP_SIZES) {
      const data = await dataFor(animals);
      const samples = new Map<ContenderId, { startupMs: number; rssMiB: number; peakMiB: number }[]>();
      const failures: string[] = [];
      for (let repeat = 0; repeat < STARTUP_REPEATS; repeat++) {
        for (const contender of contenders) {
          try {
            const server = await startServer(contender, { data, store: 'file', workDir: workDir(), pinning, ...ourBuild });
            const memory = server.memory();
            await server.stop();
            const list = samples.get(contender) ?? [];
            list.push({ startupMs: server.startupMs, rssMiB: memory?.rssMiB ?? NaN, peakMiB: memory?.peakMiB ?? NaN });
            samples.set(contender, list);
            log(
              `start-up ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)}: ${server.startupMs.toFixed(0)} ms, ${memory?.rssMiB.toFixed(0)} MiB`,
            );
          } catch (error) {
            failed = true;
            failures.push(`${contender}: ${errorText(error)}`);
            log(`start-up ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)} FAILED: ${errorText(error)}`);
          }
        }
      }
      const result: StartupResult = { animals, contenders: {}, failures };
      for (const [contender, list] of samples) {
        result.contenders[contender] = {
          startupMs: median(list.map((sample) => sample.startupMs)),
          rssMiB: median(list.map((sample) => sample.rssMiB)),
          peakMiB: median(list.map((sample) => sample.peakMiB)),
          runs: list.length,
        };
      }
      startup.push(result);
    }

    // Throughput: every round runs every group on every contender in turn (A B C A B C …).
    const workloads = new Map<WorkloadResult['id'], WorkloadResult>();
    for (const group of GROUPS) {
      for (const operation of group.operations) {
        if (!selected(operation, group.scale)) continue;
        const animals = SIZES[group.scale];
        workloads.set(`${operation}@${group.scale}`, {
          id: `${operation}@${group.scale}`,
          operation,
          scale: group.scale,
          animals,
          label: `${OPERATION_LABELS[operation]} · ${formatCount(animals)}`,
          contenders: {},
          ratioToBaseline: {},
        });
      }
    }
    const figuresOf = (id: WorkloadResult['id'], contender: ContenderId): ContenderFigures => {
      const workload = workloads.get(id)!;
      workload.contenders[contender] ??= { runs: [], median: undefined, failures: [] };
      return workload.contenders[contender];
    };

    for (let round = 1; round <= settings.rounds; round++) {
      for (const group of GROUPS) {
        const operations = group.operations.filter((operation) => selected(operation, group.scale));
        if (operations.length === 0) continue;
        const animals = SIZES[group.scale];
        const data = await dataFor(animals);
        for (const contender of contenders) {
          const name = `round ${round}/${settings.rounds} ${CONTENDER_LABELS[contender]} @ ${formatCount(animals)} ${group.store}`;
          let server: Awaited<ReturnType<typeof startServer>> | undefined;
          try {
            server = await startServer(contender, {
              data,
              store: group.store,
              workDir: workDir(),
              pinning,
              ...ourBuild,
              ...(profileDir && contender === 'ours' ? { profileDir } : {}),
            });
            // Our --memory server starts empty; the others load the same animals from the file.
            if (contender === 'ours' && group.store === 'memory') {
              await seedOverHttp(server.origin, animals, settings.connections);
            }
            for (const operation of operations) {
              const id = `${operation}@${group.scale}` as const;
              try {
                await checkAnswer(server.origin, operation);
                await runLoad(server.origin, operation, animals, { connections: settings.connections, seconds: settings.warmupSeconds });
                const figures: LoadFigures = await runLoad(server.origin, operation, animals, settings);
                figuresOf(id, contender).runs.push(figures);
                log(
                  `${name} ${operation}: ${Math.round(figures.requestsPerSecond)}/s p50 ${figures.p50} p99 ${figures.p99} ms` +
                    (figures.non2xx + figures.errors + figures.timeouts > 0
                      ? ` (non-2xx ${figures.non2xx}, errors ${figures.errors})`
                      : ''),
                );
              } catch (error) {
                failed = true;
                figuresOf(id, contender).failures.push(errorText(error));
                log(`${name} ${operation} FAILED: ${errorText(error)}`);
              }
            }
          } catch (error) {
            failed = true;
            for (const operation of operations) figuresOf(`${operation}@${group.scale}`, contender).failures.push(errorText(error));
            log(`${name} FAILED: ${errorText(error)}`);
          } finally {
            await server?.stop();
          }
        }
      }
    }

    for (const workload of workloads.values()) {
      for (const figures of Object.values(workload.contenders)) figures.median = medianFigures(figures.runs);
      const baseline = workload.contenders.baseline?.median?.requestsPerSecond;
      for (const contender of ['ours', 'jsonServer'] as const) {
        const rps = workload.contenders[contender]?.median?.requestsPerSecond;
        if (rps !== undefined && baseline) workload.ratioToBaseline[contender] = rps / baseline;
      }
    }

    const results: BenchResults = {
      startedAt,
      finishedAt: new Date().toISOString(),
      quick,
      source: sourceOf(ourSource ?? REPO_ROOT),
      machine,
      settings: {
        ...settings,
        ourServer: ourSource
          ? `node adapters/cli.js (tsc build of ${ourSource})`
          : compiledDir
            ? 'node adapters/cli.js (tsc build)'
            : 'node --import tsx adapters/cli.ts',
      },
      workloads: [...workloads.values()].sort(inTableOrder),
      startup,
      targets: [],
    };
    results.targets = judgeTargets(results);
    await writeOutputs(results);
  } finally {
    await rm(temporary, { recursive: true, force: true });
  }
  if (failed) {
    log('some runs failed; see above');
    process.exitCode = 1;
  }
};

await main();
