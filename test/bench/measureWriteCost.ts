/**
 * @module What a create costs the disk (issue 30): the built bin on a JSON data file, bytes
 * written per create as the kernel counts them for the server process (`write_bytes` of
 * `/proc/PID/io`), 50 creates one after another, plain then keyed, at 1,000, 100,000 and
 * 1,000,000 animals and at 100,000 live Idempotency-Keys; how long each start took to serve;
 * then keyed against plain creates under wrk (50 connections, a new key per keyed create) in
 * three windows of 12 s, side by side: two servers on copies of one file of 100,000 animals
 * and keys, one taking plain creates and one keyed creates (its keys piling up) at the same
 * time, so the machine's slow spells, which move a lone 12 s window by a fifth on a shared
 * host, fall on both alike. Where `taskset` can, both servers share one core and the two
 * wrk another (`separateCores`): the ratio is then what each create costs the server, not
 * which of the two the scheduler favoured; each window also gives the CPU each server spent a
 * create. Then three more windows, in turns: each window's seconds cut into turns of 2 s,
 * plain and keyed in turn (which goes first alternating), each server alone on its core
 * while it is loaded, as a user's one server is, where side by side the two share the
 * core's caches; the host's slow spells mostly last longer than a turn, so they fall on
 * both alike. A third server, a second plain one on another copy of the file, takes its
 * turns beside them: how far two servers doing the same thing differ in a window (a process's
 * compiled code and memory layout differ from another's) is the noise any one window's
 * keyed/plain carries. The keyed server's keys keep piling up through both. Needs a build
 * (`npm run build`) and wrk. Run
 * `npm run bench -- --only write-cost` or
 * `npx tsx test/bench/measureWriteCost.ts [--sizes 1000,100000,1000000] [--seconds 12] [--windows 3]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killLeftoverProcessesOnExit, type NodeProcess, spawnProcess } from '../support/nodeProcess.js';
import { REPO_ROOT, waitForListening } from '../support/startCli.js';
import { onServerCore, type Pinning, separateCores } from './machine.js';
import { seedWriteCostFile } from './seedWriteCostFile.js';
import type { LoadFigures, LoadRequest } from './workloads.js';
import { runWrkRequest } from './wrkLoad.js';

/** What the bench measures (the command line's flags of the same names; `liveKeys` is `--keys`). */
export interface WriteCostSettings {
  /** The catalogue sizes of the files without keys, in animals. */
  sizes: number[];
  /** The live keys of the keyed files and of the loaded one. */
  liveKeys: number;
  /** Seconds of each window, plain and keyed creates at once (whole seconds: wrk's). */
  seconds: number;
  windows: number;
  /** Creates one after another per figure of bytes written. */
  creates: number;
}

/** As `npm run bench -- --only write-cost` measures. */
export const DEFAULT_WRITE_COST: WriteCostSettings = {
  sizes: [1_000, 100_000, 1_000_000],
  liveKeys: 100_000,
  seconds: 12,
  windows: 3,
  creates: 50,
};

/** As `npm run bench -- --only write-cost --quick` measures: proof that the bench runs, in seconds. */
export const QUICK_WRITE_COST: WriteCostSettings = { sizes: [1_000], liveKeys: 2_000, seconds: 2, windows: 1, creates: 5 };

const KEY = 'write-cost-bench-key-0123456789';
const BIN = path.join(REPO_ROOT, 'dist', 'adapters', 'cli.js');
const BODY = JSON.stringify({ name: 'Measured', categoryId: 7 });

/** The bytes the kernel has counted as written to storage by the process. */
const writeBytes = (pid: number): number => Number(/^write_bytes: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

/** How long each turn of the windows in turns lasts (whole seconds: wrk's). */
const TURN_SECONDS = 2;

/** Not pinned: the one-after-another creates wait on the disk, not on a core. */
const UNPINNED: Pinning = { applied: false, note: 'not pinned' };

/** A server this bench started: its process, its URL, and the seconds until it answered a read. */
interface Started {
  server: NodeProcess;
  url: string;
  startSeconds: number;
}

/** Starts the built bin on `file` (on the servers' core of `pinning`). */
const start = async (file: string, pinning = UNPINNED): Promise<Started> => {
  const started = performance.now();
  const server = spawnProcess(
    ...onServerCore(pinning, process.execPath, [BIN, 'serve', '--port', '0', '--data', file, '--api-key', KEY, '--quiet']),
  );
  const url = await waitForListening(server);
  const answer = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
  if (answer.status !== 200) throw new Error(`the server answered ${answer.status}`);
  return { server, url, startSeconds: (performance.now() - started) / 1000 };
};

const stop = async (server: NodeProcess) => {
  server.child.kill('SIGTERM');
  await server.exited;
};

/** Bytes written per create and milliseconds per create, over `creates` creates one after another. */
const oneAfterAnother = async (url: string, pid: number, keyed: boolean, creates: number) => {
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

/** The figures of `seconds` of creates under wrk (50 connections), plain or keyed, at a server started here. */
const load = async ({ server, url }: Started, keyed: boolean, seconds: number, pinning: Pinning): Promise<LoadFigures> => {
  const { origin, pathname } = new URL(url);
  const request: LoadRequest = {
    method: 'POST',
    path: `${pathname}/pets`,
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: BODY,
    keyed,
  };
  const figures = await runWrkRequest({ origin, serverPid: server.child.pid!, pinning }, request, { connections: 50, seconds });
  if (figures.non2xx + figures.errors + figures.timeouts > 0)
    throw new Error(`wrk met ${figures.non2xx} error answers, ${figures.errors} connection errors and ${figures.timeouts} timeouts`);
  return figures;
};

/** How many Idempotency-Keys a stopped server's data file holds. */
const keysIn = (file: string): number =>
  (JSON.parse(fs.readFileSync(file, 'utf8')) as { idempotencyKeys: unknown[] }).idempotencyKeys.length;

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
/** The server's CPU a create, where /proc could tell. */
const us = ({ serverUsPerRequest }: LoadFigures) => (serverUsPerRequest === undefined ? '–' : serverUsPerRequest.toFixed(0));

/** Measures and prints the Markdown tables; resolves with the rows. */
export const measureWriteCost = async (settings: WriteCostSettings = DEFAULT_WRITE_COST, log: (line: string) => void = console.log) => {
  const { sizes, liveKeys, seconds, windows, creates } = settings;
  // wrk takes whole seconds.
  if (!(seconds >= 1 && Number.isInteger(seconds))) throw new Error(`a window of ${seconds} s is not a whole number of seconds`);
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
      seedWriteCostFile(file, animals, keys);
      const size = fs.statSync(file).size;
      const { server, url, startSeconds } = await start(file);
      // Let the start's own work (the background encoding of the file's bytes) settle first.
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const plain = await oneAfterAnother(url, server.child.pid!, false, creates);
      const keyed = await oneAfterAnother(url, server.child.pid!, true, creates);
      await stop(server);
      fs.rmSync(file, { force: true });
      rows.push({ animals, keys, size, startSeconds, plain, keyed });
      log(
        `| ${animals.toLocaleString('en')} | ${keys.toLocaleString('en')} | ${(size / 1e6).toFixed(1)} MB | ${startSeconds.toFixed(2)} s | ${kib(plain.bytes)} | ${kib(keyed.bytes)} | ${plain.ms.toFixed(1)} | ${keyed.ms.toFixed(1)} |`,
      );
    }
    const plainFile = path.join(folder, 'load.json');
    const keyedFile = path.join(folder, 'load-keyed.json');
    const secondPlainFile = path.join(folder, 'load-second.json');
    seedWriteCostFile(plainFile, 100_000, liveKeys);
    fs.copyFileSync(plainFile, keyedFile);
    fs.copyFileSync(plainFile, secondPlainFile);
    const pinning = separateCores();
    const plainServer = await start(plainFile, pinning);
    const keyedServer = await start(keyedFile, pinning);
    const secondPlainServer = await start(secondPlainFile, pinning);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    log('');
    log(
      `| window (${seconds} s, side by side${pinning.applied ? `, servers on CPU ${pinning.serverCpu}` : ''}, 50 connections each) | plain creates/s | keyed creates/s | keyed/plain | server's µs a create: plain | keyed | keyed server's RSS after |`,
    );
    log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const windowFigures = [];
    for (let window = 1; window <= windows; window++) {
      const [plain, keyed] = await Promise.all([load(plainServer, false, seconds, pinning), load(keyedServer, true, seconds, pinning)]);
      const rss = Number(/^VmRSS:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${keyedServer.server.child.pid}/status`, 'utf8'))![1]) / 1024;
      const ratio = keyed.requestsPerSecond / plain.requestsPerSecond;
      windowFigures.push({ plain: plain.requestsPerSecond, keyed: keyed.requestsPerSecond, rss });
      log(
        `| ${window} | ${Math.round(plain.requestsPerSecond)} | ${Math.round(keyed.requestsPerSecond)} | ${ratio.toFixed(2)} | ${us(plain)} | ${us(keyed)} | ${rss.toFixed(0)} MB |`,
      );
    }
    log('');
    const turns = Math.max(1, Math.floor(seconds / TURN_SECONDS));
    log(
      `| window (${turns} ${turns === 1 ? 'turn' : 'turns'} of ${TURN_SECONDS} s, in turns${pinning.applied ? `, servers on CPU ${pinning.serverCpu}` : ''}, 50 connections) | plain creates/s | keyed creates/s | keyed/plain | second plain server/plain |`,
    );
    log('| ---: | ---: | ---: | ---: | ---: |');
    // The second plain server idled through the windows side by side: a window of creates
    // first, unreported, so its code is compiled as the other two's is (a server's first
    // second or two of creates run at a fraction of the speed of the rest).
    await load(secondPlainServer, false, seconds, pinning);
    const turnFigures = [];
    const servers = { plain: plainServer, keyed: keyedServer, second: secondPlainServer };
    // Each takes the first turn, then the second, then the last, in turn.
    const orders = [
      ['plain', 'keyed', 'second'],
      ['keyed', 'second', 'plain'],
      ['second', 'plain', 'keyed'],
    ] as const;
    for (let window = 1; window <= windows; window++) {
      const creates = { plain: 0, keyed: 0, second: 0 };
      for (let turn = 0; turn < turns; turn++) {
        for (const which of orders[turn % orders.length]!) {
          const figures = await load(servers[which], which === 'keyed', TURN_SECONDS, pinning);
          creates[which] += figures.requestsPerSecond * TURN_SECONDS;
        }
      }
      const perSecond = (count: number) => count / (turns * TURN_SECONDS);
      const [plain, keyed, second] = [perSecond(creates.plain), perSecond(creates.keyed), perSecond(creates.second)];
      turnFigures.push({ plain, keyed, second });
      log(`| ${window} | ${Math.round(plain)} | ${Math.round(keyed)} | ${(keyed / plain).toFixed(2)} | ${(second / plain).toFixed(2)} |`);
    }
    await Promise.all([stop(plainServer.server), stop(keyedServer.server), stop(secondPlainServer.server)]);
    // Proof that the keyed load stored a key with each create rather than replaying one:
    // after a clean stop the keyed server's document holds a key more than it was seeded
    // with for each keyed create answered, or a few more, since wrk counts only the answers
    // it read before it stopped.
    const answered = Math.round(
      windowFigures.reduce((sum, { keyed }) => sum + keyed * seconds, 0) +
        turnFigures.reduce((sum, { keyed }) => sum + keyed * turns * TURN_SECONDS, 0),
    );
    const added = keysIn(keyedFile) - liveKeys;
    if (!(added >= answered * 0.98))
      throw new Error(`the keyed server stored ${added} keys for about ${answered} keyed creates answered: its load did not send new keys`);
    log('');
    log(
      `The keyed server's file holds ${added.toLocaleString('en')} keys more than it was seeded with, for about ${answered.toLocaleString('en')} keyed creates answered.`,
    );
    return { rows, load: windowFigures, inTurns: turnFigures };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({
    options: {
      sizes: { type: 'string', default: DEFAULT_WRITE_COST.sizes.join(',') },
      keys: { type: 'string', default: String(DEFAULT_WRITE_COST.liveKeys) },
      seconds: { type: 'string', default: String(DEFAULT_WRITE_COST.seconds) },
      windows: { type: 'string', default: String(DEFAULT_WRITE_COST.windows) },
      creates: { type: 'string', default: String(DEFAULT_WRITE_COST.creates) },
    },
  });
  killLeftoverProcessesOnExit();
  await measureWriteCost({
    sizes: values.sizes.split(',').map(Number),
    liveKeys: Number(values.keys),
    seconds: Number(values.seconds),
    windows: Number(values.windows),
    creates: Number(values.creates),
  });
}
