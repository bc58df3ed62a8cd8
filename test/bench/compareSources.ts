/**
 * @module Before and after over HTTP: our server built from several checkouts (a change and
 * the commit before it, say), and optionally the references, started in turn as the bench
 * starts them (pinned, loaded by wrk) round after round, so that a shared machine's slow
 * spells fall on each alike. Prints medians of the server's CPU time per response (the
 * steady figure when other programs share the core), req/s and p99.
 *
 *   npx tsx test/bench/compareSources.ts --source before=/tmp/before --source after=. \
 *     [--floor] [--bare] --only list20,getById [--rounds 4] [--seconds 5] [--animals 10000]
 *   npx tsx test/bench/compareSources.ts --source built=. --from-source tsx --only walk20,getById
 *                      this checkout as `npx animal-store` (and `npm start`) run it, a tsc
 *                      build, against the same TypeScript run through tsx
 *
 *   npx tsx test/bench/compareSources.ts --source before=/tmp/before --source after=. --together \
 *     --only walk20,getById --rounds 5
 *                      both servers on the server core at once, loaded at once: the host's
 *                      slow spells fall on both alike, so the ratio of their CPU per response
 *                      holds to a few per cent where runs one after another move by a third
 *                      on a shared machine. A server with a larger working set loses more to
 *                      the other's company, so the ratios are a little harsher than alone.
 *
 * A checkout needs its dependencies (`node_modules` linked to this one's will do). The
 * operations of a run share one server per round: `createMemory` runs on its own memory
 * server, the others on a copy of the data file.
 */
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { killLeftoverProcessesOnExit } from '../support/nodeProcess.js';
import { writeBenchData } from './benchData.js';
import { chooseLoadGenerator } from './loadGenerator.js';
import { pinLoadGenerator } from './machine.js';
import { median } from './results.js';
import { type ContenderId, compileServers, startServer } from './servers.js';
import { checkAnswer, type LoadFigures, type Operation, seedOverHttp } from './workloads.js';

const { values } = parseArgs({
  options: {
    source: { type: 'string', multiple: true, default: [] },
    floor: { type: 'boolean', default: false },
    bare: { type: 'boolean', default: false },
    only: { type: 'string', default: 'list20' },
    'from-source': { type: 'string' },
    rounds: { type: 'string', default: '4' },
    seconds: { type: 'string', default: '5' },
    animals: { type: 'string', default: '10000' },
    connections: { type: 'string', default: '50' },
    together: { type: 'boolean', default: false },
  },
});

killLeftoverProcessesOnExit();
const operations = values.only.split(',') as Operation[];
const animals = Number(values.animals);
const load = { connections: Number(values.connections), seconds: Number(values.seconds) };
const temporary = await mkdtemp(join(tmpdir(), 'animal-store-compare-'));
const pinning = pinLoadGenerator();
const generator = chooseLoadGenerator('wrk', false);
const data = await writeBenchData(join(temporary, 'data'), animals);

/** Who runs: each checkout as `ours` from its own build, then the references asked for. */
const runners: { name: string; contender: ContenderId; compiledDir?: string }[] = [];
for (const [index, entry] of values.source.entries()) {
  const [name, directory] = entry.includes('=') ? entry.split(/=(.*)/s) : [`source${index + 1}`, entry];
  runners.push({
    name: name!,
    contender: 'ours',
    compiledDir: await compileServers(join(temporary, `build-${index}`), resolve(directory!)),
  });
}
// This repository's TypeScript run through tsx (what `npm start` ran before it compiled the sources).
if (values['from-source'] !== undefined) runners.push({ name: values['from-source'], contender: 'ours' });
// Every build holds the references too, compiled from this repository.
const referencesBuild = runners[0]?.compiledDir;
if (values.floor) runners.push({ name: 'floor', contender: 'floor', ...(referencesBuild ? { compiledDir: referencesBuild } : {}) });
if (values.bare) runners.push({ name: 'bare', contender: 'baseline', ...(referencesBuild ? { compiledDir: referencesBuild } : {}) });

const figures = new Map<string, LoadFigures[]>();
const groups = [
  operations.filter((operation) => operation !== 'createMemory'),
  operations.filter((operation) => operation === 'createMemory'),
];
let starts = 0;
/** Starts a runner's server on `storage`, seeded as the bench seeds it. */
const startRunner = async (runner: (typeof runners)[number], storage: 'memory' | 'file') => {
  const server = await startServer(runner.contender, {
    data,
    storage,
    workDir: join(temporary, `start-${++starts}`),
    pinning,
    ...(runner.compiledDir === undefined ? {} : { compiledDir: runner.compiledDir }),
  });
  if (runner.contender === 'ours' && storage === 'memory') await seedOverHttp(server.origin, animals, load.connections);
  return server;
};
const report = (round: number, key: string, result: LoadFigures) => {
  figures.set(key, [...(figures.get(key) ?? []), result]);
  process.stderr.write(
    `round ${round} ${key}: ${Math.round(result.requestsPerSecond)}/s, ${result.serverUsPerRequest?.toFixed(1)} µs CPU per response, ` +
      `server ${result.serverCpu?.toFixed(0)}% (core ${result.serverCoreBusy?.toFixed(0)}%), p99 ${result.p99.toFixed(1)} ms\n`,
  );
};
/** Per operation and runner, each round's CPU per response over the first runner's in the same round (`--together`). */
const ratios = new Map<string, number[]>();
for (let round = 1; round <= Number(values.rounds); round++) {
  for (const group of groups.filter((operationsOfGroup) => operationsOfGroup.length > 0)) {
    const storage = group[0] === 'createMemory' ? 'memory' : 'file';
    if (values.together) {
      const servers = await Promise.all(runners.map((runner) => startRunner(runner, storage)));
      try {
        const targets = servers.map((server) => ({ origin: server.origin, serverPid: server.pid, pinning }));
        for (const operation of group) {
          for (const server of servers) await checkAnswer(server.origin, operation);
          await Promise.all(targets.map((target) => generator.run(target, operation, animals, { ...load, seconds: 1 })));
          const results = await Promise.all(targets.map((target) => generator.run(target, operation, animals, load)));
          for (const [index, result] of results.entries()) {
            const key = `${operation} ${runners[index]!.name}`;
            report(round, key, result);
            const ratio = (result.serverUsPerRequest ?? Number.NaN) / (results[0]!.serverUsPerRequest ?? Number.NaN);
            if (index > 0) ratios.set(key, [...(ratios.get(key) ?? []), ratio]);
          }
        }
      } finally {
        await Promise.all(servers.map((server) => server.stop()));
      }
      continue;
    }
    for (const runner of runners) {
      const server = await startRunner(runner, storage);
      try {
        const target = { origin: server.origin, serverPid: server.pid, pinning };
        for (const operation of group) {
          await checkAnswer(server.origin, operation);
          await generator.run(target, operation, animals, { ...load, seconds: 1 });
          report(round, `${operation} ${runner.name}`, await generator.run(target, operation, animals, load));
        }
      } finally {
        await server.stop();
      }
    }
  }
}
for (const [key, runs] of figures) {
  const us = runs.map((run) => run.serverUsPerRequest ?? NaN);
  process.stdout.write(
    `${key.padEnd(26)} ${median(us).toFixed(1).padStart(6)} µs CPU per response [${us.map((value) => value.toFixed(1)).join(' ')}], ` +
      `${Math.round(median(runs.map((run) => run.requestsPerSecond)))}/s, p99 ${median(runs.map((run) => run.p99)).toFixed(1)} ms\n`,
  );
}
for (const [key, values] of ratios) {
  process.stdout.write(
    `${key.padEnd(26)} ${median(values).toFixed(3)} of ${runners[0]!.name}'s CPU per response, same rounds [${values.map((value) => value.toFixed(3)).join(' ')}]\n`,
  );
}
