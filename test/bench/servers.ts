/**
 * @module The three contenders as child processes: our standalone server, the hand-written
 * baseline and json-server 0.17. Each starts on the server core, reports when it listens,
 * its start-up time and resident memory, and stops (or is killed) when asked or when this
 * process ends.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchDataFiles } from './benchData.js';
import { onServerCore, type Pinning } from './machine.js';

/** The contenders, in the order each round runs them. */
export const CONTENDERS = ['ours', 'baseline', 'jsonServer'] as const;
export type ContenderId = (typeof CONTENDERS)[number];

/** How the contenders are named in the table and chart. */
export const CONTENDER_LABELS: Record<ContenderId, string> = {
  ours: 'animal-store',
  baseline: 'bare node:http',
  jsonServer: 'json-server 0.17',
};

/** The repository root, where `adapters/cli.ts` and `node_modules` live. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The API key every contender is started with (json-server ignores it). */
export const BENCH_KEY = 'bench-key-4f1c9a';

/** What a contender is started on. */
export interface StartRequest {
  data: BenchDataFiles;
  /** `file`: the durable store on a fresh copy of the data file; `memory`: nothing written. */
  store: 'file' | 'memory';
  /** A fresh directory for this start's copy of the data. */
  workDir: string;
  pinning: Pinning;
  /** Write a V8 CPU profile of our server into this directory (ours only). */
  profileDir?: string;
  /** Run our server from this tsc build (see `compileOurServer`) instead of through tsx. */
  compiledDir?: string;
}

/** A contender that listens. */
export interface RunningServer {
  contender: ContenderId;
  /** `http://127.0.0.1:PORT` (no base path). */
  origin: string;
  pid: number;
  /** Milliseconds from spawn to listening. */
  startupMs: number;
  /** Resident memory now and at its peak, in MiB, from /proc (undefined off Linux). */
  memory(): { rssMiB: number; peakMiB: number } | undefined;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<void>;
}

/** tsx, which Node resolves from the working directory: ours and the baseline start in the repository. */
const TSX_IMPORT = ['--import', 'tsx'];
const STARTUP_LIMIT_MS = 180_000;
const STOP_GRACE_MS = 15_000;

/** Every child still alive, killed when this process ends for any reason. */
const children = new Set<ChildProcess>();
const killAll = () => {
  for (const child of children) child.kill('SIGKILL');
};
process.once('exit', killAll);
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    killAll();
    process.exit(130);
  });
}

/** A free TCP port on 127.0.0.1, for json-server, which cannot be told to pick one. */
const freePort = () =>
  new Promise<number>((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => (typeof address === 'object' && address ? resolvePort(address.port) : reject(new Error('no port'))));
    });
  });

const readMemory = (pid: number) => {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN);
    return { rssMiB: kib('VmRSS') / 1024, peakMiB: kib('VmHWM') / 1024 };
  } catch {
    return undefined;
  }
};

const wait = (ms: number) => new Promise((resolveWait) => setTimeout(resolveWait, ms));

/** Spawns a child on the server core and keeps the last of its output for error messages. */
const spawnServer = (pinning: Pinning, args: string[], cwd: string) => {
  const [command, commandArgs] = onServerCore(pinning, process.execPath, args);
  const child = spawn(command, commandArgs, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  void exited.then(() => children.delete(child));
  let output = '';
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  return { child, exited, output: () => output };
};

/** Resolves with the origin of the first `listening on http://…` line a child prints. */
const listeningLine = (child: ChildProcess, output: () => string, exited: Promise<void>) =>
  new Promise<string>((resolveOrigin, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "listening" line within ${STARTUP_LIMIT_MS} ms:\n${output()}`)), STARTUP_LIMIT_MS);
    let seen = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      seen += chunk.toString('utf8');
      const match = /listening on (https?:\/\/[^/\s]+)/.exec(seen);
      if (match) {
        clearTimeout(timer);
        resolveOrigin(match[1]!);
      }
    });
    void exited.then(() => {
      clearTimeout(timer);
      reject(new Error(`the server exited before listening (code ${child.exitCode}):\n${output()}`));
    });
  });

/** Polls until a GET answers, for json-server, which prints nothing useful when ready. */
const answering = async (origin: string, output: () => string, exited: Promise<void>) => {
  let gone = false;
  void exited.then(() => (gone = true));
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`json-server exited before listening:\n${output()}`);
    const ok = await fetch(`${origin}/v1/pets/1`).then(
      (response) => response.body?.cancel().then(() => true) ?? true,
      () => false,
    );
    if (ok) return;
    await wait(10);
  }
  throw new Error(`json-server did not answer within ${STARTUP_LIMIT_MS} ms:\n${output()}`);
};

/** Routes that give json-server our URLs: `/v1/…` and `limit` become its `/…` and `_limit`. */
const JSON_SERVER_ROUTES = {
  '/v1/pets\\?limit=:rest': '/pets?_limit=:rest',
  '/v1/*': '/$1',
};

/** The argument list and how to know it is ready, per contender. */
const commandFor = async (contender: ContenderId, request: StartRequest) => {
  const { data, store, workDir } = request;
  const copy = async (from: string) => {
    const to = join(workDir, `data-${data.animals}.json`);
    await copyFile(from, to);
    return to;
  };
  if (contender === 'ours') {
    const storeArgs = store === 'memory' ? ['--memory'] : ['--data', await copy(data.storeFile)];
    const profile = request.profileDir ? ['--cpu-prof', '--cpu-prof-dir', request.profileDir] : [];
    const entry = request.compiledDir
      ? [join(request.compiledDir, 'adapters/cli.js')]
      : [...TSX_IMPORT, join(REPO_ROOT, 'adapters/cli.ts')];
    return {
      args: [...profile, ...entry, 'serve', '--host', '127.0.0.1', '--port', '0', '--api-key', BENCH_KEY, '--quiet', ...storeArgs],
      port: undefined,
      cwd: REPO_ROOT,
    };
  }
  if (contender === 'baseline') {
    const storeArgs = store === 'memory' ? ['--data', data.storeFile, '--memory'] : ['--data', await copy(data.storeFile)];
    return {
      args: [...TSX_IMPORT, join(REPO_ROOT, 'test/bench/baseline.ts'), '--api-key', BENCH_KEY, '--port', '0', ...storeArgs],
      port: undefined,
      cwd: REPO_ROOT,
    };
  }
  const routes = join(workDir, 'routes.json');
  await writeFile(routes, JSON.stringify(JSON_SERVER_ROUTES));
  const source = store === 'memory' ? data.jsonServerMemoryModule : await copy(data.jsonServerFile);
  const port = await freePort();
  const bin = join(REPO_ROOT, 'node_modules/json-server/lib/cli/bin.js');
  return { args: [bin, source, '--routes', routes, '--host', '127.0.0.1', '--port', String(port), '--quiet'], port, cwd: workDir };
};

/**
 * Compiles our server (from the repository, or from a copy of it holding a change to try)
 * with tsc into `directory` (made resolvable: `node_modules` linked to
 * the repository's, `"type": "module"`). Profiles of tsx-run code are useless: tsx minifies
 * whitespace, so every function sits on line 1 and closures lose their names.
 */
export const compileOurServer = async (directory: string, sourceRoot = REPO_ROOT): Promise<string> => {
  await mkdir(directory, { recursive: true });
  const tsc = spawn(
    process.execPath,
    [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.build.json', '--outDir', directory, '--declaration', 'false'],
    {
      cwd: sourceRoot,
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  children.add(tsc);
  const code = await new Promise<number | null>((resolveExit) => tsc.once('exit', resolveExit));
  children.delete(tsc);
  if (code !== 0) throw new Error(`tsc -p tsconfig.build.json failed with code ${code}`);
  await symlink(join(REPO_ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
  await writeFile(join(directory, 'package.json'), '{"type":"module"}\n');
  return directory;
};

/**
 * Starts a contender and resolves once it answers. Our server and the baseline say so on
 * stdout; json-server is polled. Note that our server with `--memory` starts empty: the
 * caller seeds it over HTTP.
 */
export const startServer = async (contender: ContenderId, request: StartRequest): Promise<RunningServer> => {
  await mkdir(request.workDir, { recursive: true });
  const { args, port, cwd } = await commandFor(contender, request);
  const started = performance.now();
  const { child, exited, output } = spawnServer(request.pinning, args, cwd);
  let origin: string;
  try {
    if (port === undefined) origin = await listeningLine(child, output, exited);
    else {
      origin = `http://127.0.0.1:${port}`;
      await answering(origin, output, exited);
    }
  } catch (error) {
    child.kill('SIGKILL');
    await exited;
    throw new Error(`${CONTENDER_LABELS[contender]} did not start: ${(error as Error).message}`);
  }
  const startupMs = performance.now() - started;
  const pid = child.pid!;
  let stopping: Promise<void> | undefined;
  return {
    contender,
    origin,
    pid,
    startupMs,
    memory: () => readMemory(pid),
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await exited;
        clearTimeout(timer);
      })()),
  };
};
