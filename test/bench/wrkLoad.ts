/**
 * @module Loads a server with wrk (one thread on the generator's core) through
 * `wrk/load.lua`, whose `done()` hook prints exact percentiles and error counts as JSON,
 * while the CPU of the server and of wrk is sampled.
 */
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnProcess } from '../support/nodeProcess.js';
import { startCpuSampling } from './cpuSampling.js';
import { onLoadCore, type Pinning } from './machine.js';
import {
  CREATE,
  type LoadFigures,
  type LoadRequest,
  type LoadSettings,
  loadRequestOf,
  type Operation,
  settle,
  usPerRequest,
} from './workloads.js';

/** The committed Lua script every wrk run uses. */
export const WRK_SCRIPT = fileURLToPath(new URL('./wrk/load.lua', import.meta.url));

/** How to get wrk, for the messages that ask for it. */
export const WRK_INSTALL = 'install wrk: `sudo apt-get install wrk` on Debian or Ubuntu (elsewhere see https://github.com/wg/wrk)';

/** wrk's version (`4.1.0`, or Debian's `debian/4.1.0-3+b2`), or undefined when it is not installed. */
export const wrkVersion = (): string | undefined => {
  const answer = spawnSync('wrk', ['-v'], { encoding: 'utf8' });
  if (answer.error) return undefined;
  return /^wrk (\S+)/m.exec(`${answer.stdout}${answer.stderr}`)?.[1] ?? 'unknown version';
};

/** The figures wrk/load.lua prints. */
interface WrkResult {
  requests: number;
  durationUs: number;
  connectErrors: number;
  readErrors: number;
  writeErrors: number;
  statusErrors: number;
  timeouts: number;
  latencyUs: { p50: number; p90: number; p99: number; max: number; mean: number };
}

/** Where the server under load is. */
export interface LoadTarget {
  origin: string;
  serverPid: number;
  pinning: Pinning;
}

/** Runs wrk with `operation`'s request (see `runWrkRequest`), then waits until the server has caught up. */
export const runWrk = async (target: LoadTarget, operation: Operation, animals: number, settings: LoadSettings): Promise<LoadFigures> => {
  const figures = await runWrkRequest(target, await loadRequestOf(target.origin, operation, animals), settings);
  await settle(target.origin);
  return figures;
};

/**
 * Runs wrk with `request` for `settings.seconds` against the target, sampling the CPU of both.
 * wrk takes whole seconds: a shorter (quick) run is ended by SIGINT, on which wrk stops and
 * reports what it measured.
 */
export const runWrkRequest = async (target: LoadTarget, request: LoadRequest, settings: LoadSettings): Promise<LoadFigures> => {
  const { method, path, headers, body, randomIdUpTo, paths, createEvery, keyed } = request;
  const pathsFolder = paths === undefined ? undefined : await mkdtemp(join(tmpdir(), 'animal-store-walk-'));
  const pathsFile = pathsFolder === undefined ? undefined : join(pathsFolder, 'paths.txt');
  if (pathsFile !== undefined) await writeFile(pathsFile, `${paths!.join('\n')}\n`);
  const args = [
    '--threads',
    '1',
    '--connections',
    String(settings.connections),
    '--duration',
    `${Math.max(1, Math.ceil(settings.seconds))}s`,
    // Never give up early; a slow contender is measured, not skipped.
    '--timeout',
    '30s',
    '--script',
    WRK_SCRIPT,
    ...Object.entries(headers).flatMap(([name, value]) => ['--header', `${name}: ${value}`]),
    target.origin,
  ];
  const [command, commandArgs] = onLoadCore(target.pinning, 'wrk', args);
  const wrk = spawnProcess(command, commandArgs, {
    env: {
      BENCH_METHOD: method,
      BENCH_PATH: path,
      BENCH_BODY: body,
      BENCH_RANDOM_ID_UP_TO: randomIdUpTo === undefined ? undefined : String(randomIdUpTo),
      BENCH_PATHS_FILE: pathsFile,
      BENCH_CREATE_EVERY: createEvery === undefined ? undefined : String(createEvery),
      BENCH_CREATE_PATH: createEvery === undefined ? undefined : CREATE.path,
      BENCH_CREATE_BODY: createEvery === undefined ? undefined : CREATE.body,
      BENCH_KEYED: keyed ? '1' : undefined,
    },
  });
  const sampling = startCpuSampling({
    serverPid: target.serverPid,
    generatorPid: wrk.pid,
    serverCore: target.pinning.serverCpu,
    loadCore: target.pinning.loadCpu,
  });
  const shortRun = Number.isInteger(settings.seconds) ? undefined : setTimeout(() => wrk.child.kill('SIGINT'), settings.seconds * 1000);
  let exit: Awaited<typeof wrk.exited>;
  try {
    exit = await wrk.exited;
  } finally {
    clearTimeout(shortRun);
    if (pathsFolder !== undefined) await rm(pathsFolder, { recursive: true, force: true });
  }
  const cpu = sampling.stop();
  const line = /^BENCH_RESULT (.*)$/m.exec(wrk.stdout())?.[1];
  if (exit.code !== 0 || line === undefined) {
    throw new Error(`wrk ended with code ${exit.code} (signal ${exit.signal}) without its figures:\n${wrk.stdout()}\n${wrk.stderr()}`);
  }
  const result = JSON.parse(line) as WrkResult;
  const answered = result.requests - result.statusErrors;
  const seconds = Math.max(result.durationUs / 1e6, 0.001);
  const ms = (us: number) => (result.requests > 0 ? us / 1000 : NaN);
  const requestsPerSecond = answered / seconds;
  return {
    requestsPerSecond,
    p50: ms(result.latencyUs.p50),
    p90: ms(result.latencyUs.p90),
    p99: ms(result.latencyUs.p99),
    non2xx: result.statusErrors,
    errors: result.connectErrors + result.readErrors + result.writeErrors,
    timeouts: result.timeouts,
    ...cpu,
    serverUsPerRequest: usPerRequest(cpu.serverCpu, requestsPerSecond),
  };
};
