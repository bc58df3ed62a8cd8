/**
 * @module The contenders as child processes: our standalone server, the two references
 * (bare node:http and the @whatwg-node/server floor, both `baseline.ts`) and json-server
 * 0.17. Each starts on the server core through test/support/nodeProcess.ts, reports when it
 * listens, its start-up time and resident memory, and stops (or is killed) when asked or
 * when the bench ends.
 */
import { readFileSync } from 'node:fs';
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { type NodeProcess, REPO_ROOT, spawnProcess, waitForOutput } from '../support/nodeProcess.js';
import type { BenchDataFiles } from './benchData.js';
import { BENCH_SCHEMA } from './benchDatabase.js';
import { type CpuFigures, startCpuSampling } from './cpuSampling.js';
import { onServerCore, type Pinning } from './machine.js';
import { BENCH_KEY } from './workloads.js';

export { REPO_ROOT } from '../support/nodeProcess.js';

/** The contenders, in the order each round runs them. */
export const CONTENDERS = ['ours', 'baseline', 'floor', 'jsonServer'] as const;
/** A contender's id. */
export type ContenderId = (typeof CONTENDERS)[number];

/** How the contenders are named in the table and chart. */
export const CONTENDER_LABELS: Record<ContenderId, string> = {
  ours: 'animal-store',
  baseline: 'bare node:http',
  floor: '@whatwg-node/server floor',
  jsonServer: 'json-server 0.17',
};

/**
 * Where a contender keeps the animals. `file`: a durable JSON file (a fresh copy of the
 * bench's data); `memory`: nothing written; `postgres`: our `--database URL` storage, ours
 * only (the references and json-server have none), on the bench's database and schema.
 */
export type StorageKind = 'file' | 'memory' | 'postgres';

/** The storages each contender can run on. */
export const STORAGES_OF: Record<ContenderId, readonly StorageKind[]> = {
  ours: ['file', 'memory', 'postgres'],
  baseline: ['file', 'memory'],
  floor: ['file', 'memory'],
  jsonServer: ['file', 'memory'],
};

/** What a contender is started on. */
export interface StartRequest {
  data: BenchDataFiles;
  storage: StorageKind;
  /** The PostgreSQL connection URL, for the `postgres` storage. */
  databaseUrl?: string;
  /** A fresh directory for this start's copy of the data. */
  workDir: string;
  pinning: Pinning;
  /** Write a V8 CPU profile of our server into this directory (ours only). */
  profileDir?: string;
  /** Run our server and the references from this tsc build (see `compileServers`) instead of through tsx. */
  compiledDir?: string;
  /** More of our CLI's flags, after the bench's own (ours only). */
  ourFlags?: string[];
}

/** A contender that listens. */
export interface RunningServer {
  contender: ContenderId;
  /** `http://127.0.0.1:PORT` (no base path). */
  origin: string;
  pid: number;
  /** Milliseconds from spawn to listening. */
  startupMs: number;
  /** The server's CPU and its core's business from spawn to listening: how much of the start-up was waiting for other programs. */
  startupCpu: CpuFigures;
  /** Resident memory now and at its peak, in MiB, from /proc (undefined off Linux). */
  memory(): { rssMiB: number; peakMiB: number } | undefined;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<void>;
}

/** tsx, which Node resolves from the working directory: ours and the references start in the repository. */
const TSX_IMPORT = ['--import', 'tsx'];
const STARTUP_LIMIT_MS = 180_000;
const STOP_GRACE_MS = 15_000;

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

/** The last of a process's output, for error messages. */
const tail = (running: NodeProcess) => `${running.stdout()}\n${running.stderr()}`.trim().slice(-4000);

/** Polls until a GET answers, for json-server, which prints nothing useful when ready. */
const answering = async (origin: string, running: NodeProcess) => {
  let gone = false;
  void running.exited.then(
    () => (gone = true),
    () => (gone = true),
  );
  const deadline = Date.now() + STARTUP_LIMIT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`json-server exited before listening:\n${tail(running)}`);
    const ok = await fetch(`${origin}/v1/pets/1`).then(
      (response) => response.body?.cancel().then(() => true) ?? true,
      () => false,
    );
    if (ok) return;
    await wait(10);
  }
  throw new Error(`json-server did not answer within ${STARTUP_LIMIT_MS} ms:\n${tail(running)}`);
};

/** Routes that give json-server our URLs: `/v1/…` and `limit` become its `/…` and `_limit`. */
const JSON_SERVER_ROUTES = {
  '/v1/pets\\?limit=:rest': '/pets?_limit=:rest',
  '/v1/*': '/$1',
};

/** Node's arguments, the working directory, and the port (when the contender cannot pick one and say so). */
interface Command {
  args: string[];
  cwd: string;
  port?: number;
}

/** The command that starts a contender on a storage. */
const commandFor = async (contender: ContenderId, request: StartRequest): Promise<Command> => {
  const { data, storage, workDir } = request;
  if (!STORAGES_OF[contender].includes(storage)) throw new Error(`${CONTENDER_LABELS[contender]} has no ${storage} storage`);
  const copy = async (from: string) => {
    const to = join(workDir, `data-${data.animals}.json`);
    await copyFile(from, to);
    return to;
  };
  if (contender === 'ours') {
    const storageArgs =
      storage === 'memory'
        ? ['--memory']
        : storage === 'postgres'
          ? // The bench seeds the schema before each start (benchDatabase.ts).
            ['--database', request.databaseUrl ?? '', '--schema', BENCH_SCHEMA]
          : ['--data', await copy(data.petFile)];
    const profile = request.profileDir ? ['--cpu-prof', '--cpu-prof-dir', request.profileDir] : [];
    const entry = request.compiledDir
      ? [join(request.compiledDir, 'bin/animal-store.js')]
      : [...TSX_IMPORT, join(REPO_ROOT, 'adapters/cli.ts')];
    return {
      args: [
        ...profile,
        ...entry,
        'serve',
        '--host',
        '127.0.0.1',
        '--port',
        '0',
        '--api-key',
        BENCH_KEY,
        // With its access log, as users run it (the default): a line per answer on stdout,
        // into a pipe the bench reads and drops (see startServer).
        ...storageArgs,
        ...(request.ourFlags ?? []),
      ],
      cwd: REPO_ROOT,
    };
  }
  if (contender === 'baseline' || contender === 'floor') {
    // With `--memory` the references load the same file and write nothing.
    const storageArgs = storage === 'memory' ? ['--data', data.petFile, '--memory'] : ['--data', await copy(data.petFile)];
    return {
      args: [
        ...(request.compiledDir
          ? [join(request.compiledDir, 'test/bench/baseline.js')]
          : [...TSX_IMPORT, join(REPO_ROOT, 'test/bench/baseline.ts')]),
        ...(contender === 'floor' ? ['--library-floor'] : []),
        '--api-key',
        BENCH_KEY,
        '--port',
        '0',
        ...storageArgs,
      ],
      cwd: REPO_ROOT,
    };
  }
  const routes = join(workDir, 'routes.json');
  await writeFile(routes, JSON.stringify(JSON_SERVER_ROUTES));
  const source = storage === 'memory' ? data.jsonServerMemoryModule : await copy(data.jsonServerFile);
  const port = await freePort();
  const bin = join(REPO_ROOT, 'node_modules/json-server/lib/cli/bin.js');
  return { args: [bin, source, '--routes', routes, '--host', '127.0.0.1', '--port', String(port), '--quiet'], port, cwd: workDir };
};

/** Runs tsc with `args` in `cwd`; throws with its output when it fails. */
const tsc = async (args: string[], cwd: string) => {
  const running = spawnProcess(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), ...args], { cwd });
  const { code } = await running.exited;
  if (code !== 0) throw new Error(`tsc ${args.join(' ')} failed with code ${code}:\n${tail(running)}`);
};

/**
 * Compiles our server (from the repository, or from a copy of it holding a change to try)
 * with tsc into `directory` and bundles its bin, as the package publishes it (`dist/`, and
 * `dist/bin/`, which `npx animal-store` runs), and the references (from the repository)
 * beside it in `test/bench/`, so every contender runs as plain JavaScript compiled alike. The folder is made resolvable:
 * `node_modules` linked to the repository's, `"type": "module"`. Profiles of tsx-run code
 * are useless besides: tsx minifies whitespace, so every function sits on line 1 and
 * closures lose their names.
 */
export const compileServers = async (directory: string, sourceRoot: string = REPO_ROOT): Promise<string> => {
  await mkdir(directory, { recursive: true });
  await tsc(['-p', 'tsconfig.build.json', '--outDir', directory, '--declaration', 'false'], sourceRoot);
  // The references are test code, outside tsconfig.build.json: a config of their own names them.
  const referencesConfig = join(directory, 'tsconfig.references.json');
  await writeFile(
    referencesConfig,
    JSON.stringify({
      extends: join(REPO_ROOT, 'tsconfig.json'),
      compilerOptions: {
        rootDir: REPO_ROOT,
        outDir: directory,
        // Type packages are looked up beside the config file unless told where they are.
        typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
        noEmit: false,
        declaration: false,
        sourceMap: false,
      },
      files: [join(REPO_ROOT, 'test/bench/baseline.ts')],
      // Without it the repository config's `include` would apply too, compiling the whole
      // repository over the build of the checkout under test.
      include: [],
    }),
  );
  await tsc(['-p', referencesConfig], REPO_ROOT);
  await symlink(join(REPO_ROOT, 'node_modules'), join(directory, 'node_modules'), 'dir');
  await writeFile(join(directory, 'package.json'), '{"type":"module"}\n');
  // Our bin bundled as `npm run build` bundles it: what `npx animal-store` runs.
  const bundling = spawnProcess(process.execPath, [join(REPO_ROOT, 'scripts/bundleBin.mjs'), directory]);
  if ((await bundling.exited).code !== 0) throw new Error(`bundling the bin failed:\n${tail(bundling)}`);
  return directory;
};

/**
 * Starts a contender and resolves once it answers. Our server and the references say so on
 * stdout; json-server is polled. Note that our server with `--memory` starts empty (the
 * caller seeds it over HTTP), and with `--database` serves what the caller seeded.
 */
export const startServer = async (contender: ContenderId, request: StartRequest): Promise<RunningServer> => {
  await mkdir(request.workDir, { recursive: true });
  const { args, port, cwd } = await commandFor(contender, request);
  const started = performance.now();
  const [command, commandArgs] = onServerCore(request.pinning, process.execPath, args);
  const running = spawnProcess(command, commandArgs, { cwd });
  const sampling = startCpuSampling({ serverPid: running.pid, serverCore: request.pinning.serverCpu }, 50);
  let origin: string;
  try {
    if (port === undefined) origin = (await waitForOutput(running, /listening on (https?:\/\/[^/\s]+)/, STARTUP_LIMIT_MS))[1]!;
    else {
      origin = `http://127.0.0.1:${port}`;
      await answering(origin, running);
    }
  } catch (error) {
    sampling.stop();
    running.child.kill('SIGKILL');
    await running.exited.catch(() => {});
    throw new Error(`${CONTENDER_LABELS[contender]} did not start: ${(error as Error).message}`);
  }
  const startupMs = performance.now() - started;
  const startupCpu = sampling.stop();
  const { child, pid } = running;
  // From here on, what the server prints (our access log: megabytes a run) is read and
  // dropped, as a log collector reads it, rather than kept in this process.
  child.stdout?.removeAllListeners('data').resume();
  let stopping: Promise<void> | undefined;
  return {
    contender,
    origin,
    pid,
    startupMs,
    startupCpu,
    memory: () => readMemory(pid),
    stop: () =>
      (stopping ??= (async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
        await running.exited.catch(() => {});
        clearTimeout(timer);
      })()),
  };
};
