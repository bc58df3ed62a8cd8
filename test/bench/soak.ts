/**
 * @module `npm run bench:soak`: our server, built as the package publishes it, on a JSON data
 * file of 10,000 animals on 127.0.0.1, under mixed traffic (keyed creates and replays, wrong
 * keys, slow clients, page walks, health checks) for ten minutes; its RSS and the p99 of
 * the answers are sampled every 10 s. Writes the samples to test/bench/soak.json and a chart
 * to docs/images/soak.svg, and says whether RSS stayed flat after the warm-up. A soak, not
 * a timed test: it is run by hand, and its figures are read, not asserted.
 *
 *   npm run bench:soak                          ten minutes
 *   npm run bench:soak -- --minutes 1           a short run that proves the soak works
 *   npm run bench:soak -- --out DIR             write soak.json and soak.svg to DIR instead
 *   npm run bench:soak -- --creates 5           another rate of keyed creates per second (1.2 by default,
 *                                               about 104,000 a day); with 0, what remains of RSS growth
 *                                               is not the catalogue's
 *   npm run bench:soak -- --key-lifetime 120    keep Idempotency-Keys 120 s instead of a day, so that
 *                                               they expire and are swept during the soak
 */
import { readFileSync, rmSync } from 'node:fs';
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { killLeftoverProcessesOnExit } from '../support/nodeProcess.js';
import { writeBenchData } from './benchData.js';
import { describeMachine, pinLoadGenerator } from './machine.js';
import { readHeap } from './readHeap.js';
import { compileServers, startServer } from './servers.js';
import { startTraffic, type TrafficRates } from './soakTraffic.js';
import { judgeSoak, type SoakSample } from './soakVerdict.js';
import { svgLineChart } from './svgLineChart.js';
import { BENCH_KEY } from './workloads.js';

const { values: args } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    out: { type: 'string' },
    creates: { type: 'string', default: '1.2' },
    'key-lifetime': { type: 'string' },
  },
});
const minutes = Number(args.minutes);
const keyLifetime = args['key-lifetime'] === undefined ? 'a day' : `${args['key-lifetime']} s`;
if (!(minutes > 0)) throw new Error(`--minutes must be a positive number, not ${args.minutes}`);
if (!(Number(args.creates) >= 0)) throw new Error(`--creates must be a number, 0 or more, not ${args.creates}`);

const ANIMALS = 10_000;
const SAMPLE_SECONDS = 10;
/**
 * Modest rates: the soak looks for growth over time, not for the ceiling (the bench's job).
 * Keyed creates come at 1.2 a second, what issue 24 calls a kiosk's ordinary day of work
 * (104,000 keys a day): animals never leave, so every create adds to the catalogue, and at
 * 5 a second the animals alone grew the server's RSS by ~4 MiB in eight minutes (see
 * docs/bounds.md#soak), which would hide a leak of the same size rather than show one.
 */
const RATES: TrafficRates = { creates: Number(args.creates), wrongKeys: 200, pages: 40, health: 2, slowClients: 100 };
/** The first fifth of the run (two minutes of ten) is warm-up: caches fill, the heap finds its size. */
const warmupMinutes = minutes / 5;

const benchDir = dirname(fileURLToPath(import.meta.url));
const outDir = args.out === undefined ? undefined : resolve(args.out);
const samplesFile = join(outDir ?? benchDir, 'soak.json');
const chartFile = outDir ? join(outDir, 'soak.svg') : join(benchDir, '../../docs/images/soak.svg');

const T0 = performance.now();
const log = (line: string) => process.stderr.write(`[soak ${((performance.now() - T0) / 1000).toFixed(0)}s] ${line}\n`);
/** Bytes the process has written to storage (`write_bytes` of /proc/PID/io), or undefined off Linux. */
const writtenBytes = (pid: number): number | undefined => {
  try {
    return Number(/^write_bytes: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]);
  } catch {
    return undefined;
  }
};
const wait = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));

const main = async () => {
  killLeftoverProcessesOnExit();
  const pinning = pinLoadGenerator();
  const machine = describeMachine(pinning);
  log(`${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; ${pinning.note}`);
  const temporary = await mkdtemp(join(tmpdir(), 'animal-store-soak-'));
  process.once('exit', () => rmSync(temporary, { recursive: true, force: true }));
  const compiledDir = await compileServers(join(temporary, 'build'));
  const data = await writeBenchData(join(temporary, 'data'), ANIMALS);
  // `--metrics` lets each sample read the V8 heap beside RSS: what the heap holds tells a leak from the heap's own breathing.
  const ourFlags = ['--metrics', ...(args['key-lifetime'] === undefined ? [] : ['--idempotency-key-lifetime', args['key-lifetime']])];
  const server = await startServer('ours', { data, storage: 'file', workDir: join(temporary, 'work'), pinning, compiledDir, ourFlags });
  log(`our built server listens on ${server.origin}, on a data file of ${ANIMALS} animals; ${minutes} minutes of traffic`);

  const startedAt = new Date().toISOString();
  const traffic = startTraffic(server.origin, '/v1', BENCH_KEY, RATES);
  const trafficStart = performance.now();
  // What the server writes to the disk: a kiosk's card wears by it (issue 30), so it is sampled beside memory.
  const writtenAtStart = writtenBytes(server.pid);
  const writtenMiB = () => {
    const now = writtenBytes(server.pid);
    return now === undefined || writtenAtStart === undefined ? undefined : (now - writtenAtStart) / 2 ** 20;
  };
  const samples: SoakSample[] = [{ minute: 0, rssMiB: server.memory()?.rssMiB ?? Number.NaN, writtenMiB: 0, ...traffic.takeWindow() }];
  const sampleCount = Math.max(1, Math.round((minutes * 60) / SAMPLE_SECONDS));
  for (let n = 1; n <= sampleCount; n++) {
    // On the 10 s grid from the start, so a slow sample does not push the later ones back.
    await wait(trafficStart + n * SAMPLE_SECONDS * 1000 - performance.now());
    const memory = server.memory();
    const heap = await readHeap(server.origin, BENCH_KEY);
    const sample: SoakSample = {
      minute: (n * SAMPLE_SECONDS) / 60,
      rssMiB: memory?.rssMiB ?? Number.NaN,
      writtenMiB: writtenMiB(),
      heap,
      ...traffic.takeWindow(),
    };
    samples.push(sample);
    log(
      `${sample.minute.toFixed(2)} min: RSS ${sample.rssMiB.toFixed(1)} MiB, written ${sample.writtenMiB?.toFixed(1) ?? '?'} MiB, heap ${heap ? `${heap.usedMiB.toFixed(1)}/${heap.totalMiB.toFixed(1)} (new ${heap.newSpaceMiB.toFixed(1)}, external ${heap.externalMiB.toFixed(1)})` : '?'} MiB, p99 ${sample.p99Ms.all.toFixed(1)} ms, ` +
        `${Object.values(sample.answers).reduce((sum, count) => sum + count, 0)} answers, ${sample.unexpected} unexpected ${JSON.stringify(sample.unexpectedByKind)}, ${sample.skipped} skipped`,
    );
  }
  traffic.stop();
  await server.stop();

  const verdict = judgeSoak(samples, warmupMinutes);
  log(verdict.summary);
  const written = samples.at(-1)?.writtenMiB;
  const writtenPerHourMiB = written === undefined ? undefined : (written / minutes) * 60;
  if (writtenPerHourMiB !== undefined)
    log(`written to the disk: ${written!.toFixed(1)} MiB in ${minutes} min, ${writtenPerHourMiB.toFixed(0)} MiB an hour`);
  const results = {
    startedAt,
    minutes,
    warmupMinutes,
    sampleSeconds: SAMPLE_SECONDS,
    animals: ANIMALS,
    rates: RATES,
    keyLifetime,
    machine,
    verdict,
    writtenPerHourMiB,
    samples,
  };
  await mkdir(dirname(samplesFile), { recursive: true });
  await writeFile(samplesFile, `${JSON.stringify(results, null, 2)}\n`);
  await mkdir(dirname(chartFile), { recursive: true });
  await writeFile(
    chartFile,
    svgLineChart({
      title: `animal-store under ${minutes} minute${minutes === 1 ? '' : 's'} of mixed traffic: memory and p99 latency`,
      subtitle: [
        `Built server on a JSON file of ${ANIMALS / 1000}k animals; each second ${RATES.creates} keyed creates (one in ten replayed), ${RATES.wrongKeys} wrong keys, ` +
          `${RATES.pages} list pages, ${RATES.health} health checks; ${RATES.slowClients} slow clients; keys kept ${keyLifetime}.`,
        `${machine.cpu}, ${machine.cores} cores shared with other work; ${pinning.note}; ${startedAt.slice(0, 16).replace('T', ' ')} UTC.`,
        verdict.summary,
      ],
      minutes,
      warmupMinutes,
      panels: [
        {
          label: 'Memory of the server (MiB)',
          series: [
            { name: 'RSS', color: '#2563eb', points: samples.map((s) => [s.minute, s.rssMiB]) },
            {
              name: 'V8 heap reserved',
              color: '#9333ea',
              points: samples.flatMap((s) => (s.heap ? [[s.minute, s.heap.totalMiB] as [number, number]] : [])),
            },
            {
              name: 'V8 heap in use',
              color: '#f59e0b',
              points: samples.flatMap((s) => (s.heap ? [[s.minute, s.heap.usedMiB] as [number, number]] : [])),
            },
          ],
        },
        {
          label: 'p99 latency over each 10 s (ms)',
          series: [
            { name: 'all answers', color: '#111827', points: samples.map((s) => [s.minute, s.p99Ms.all]) },
            { name: 'keyed creates', color: '#dc2626', points: samples.map((s) => [s.minute, s.p99Ms.create]) },
            { name: 'list pages', color: '#16a34a', points: samples.map((s) => [s.minute, s.p99Ms.page]) },
          ],
        },
      ],
    }),
  );
  log(`wrote ${samplesFile} and ${chartFile}`);
};

await main();
