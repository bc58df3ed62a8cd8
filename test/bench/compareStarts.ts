/**
 * @module Before and after for a start (issue 30): the built bin of several checkouts started
 * in turn, round after round, on one data file of `--animals` animals and `--keys` live
 * Idempotency-Keys, so a shared machine's slow spells fall on each alike. Prints, per start,
 * the seconds until it listened and until it answered a read, and the CPU seconds the server
 * had used by then (the steadier figure when other programs share the cores).
 *
 *   npx tsx test/bench/compareStarts.ts --source before=/tmp/before --source after=. \
 *     [--animals 1000000] [--keys 100000] [--rounds 3] [--spacing server|compact|indented|sorted]
 *
 * `--spacing` lays the file out as the server writes it (the default), or as
 * `JSON.stringify` writes the same document: on one line, or indented, or on one line with
 * its fields sorted by name (`jq -S -c`).
 *
 * A checkout needs a build (`npm run build`) and its dependencies (`node_modules` linked to
 * this one's will do).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { killLeftoverProcessesOnExit, spawnNode } from '../support/nodeProcess.js';
import { waitForListening } from '../support/startCli.js';
import { type SeedSpacing, seedWriteCostFile } from './seedWriteCostFile.js';

const { values: args } = parseArgs({
  options: {
    source: { type: 'string', multiple: true, default: ['this=.'] },
    animals: { type: 'string', default: '1000000' },
    keys: { type: 'string', default: '100000' },
    rounds: { type: 'string', default: '3' },
    spacing: { type: 'string', default: 'server' },
  },
});
const KEY = 'write-cost-bench-key-0123456789';

/** CPU seconds (user and system) the process has used, from `/proc/PID/stat`. */
const cpuSeconds = (pid: number): number => {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // In clock ticks, 100 a second on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** Starts `bin` on `file`: seconds to listening, to the first answered read, and CPU seconds by then. */
const startOnce = async (bin: string, file: string) => {
  const started = performance.now();
  const server = spawnNode([bin, 'serve', '--port', '0', '--data', file, '--api-key', KEY, '--quiet']);
  const url = await waitForListening(server);
  const listening = (performance.now() - started) / 1000;
  const answer = await fetch(`${url}/pets?limit=1`, { headers: { authorization: `Bearer ${KEY}` } });
  await answer.arrayBuffer();
  const serves = (performance.now() - started) / 1000;
  const cpu = cpuSeconds(server.child.pid!);
  server.child.kill('SIGTERM');
  await server.exited;
  if (answer.status !== 200) throw new Error(`${bin} answered ${answer.status}`);
  return { listening, serves, cpu };
};

/** The bin a checkout's package.json names, as `npx animal-store` runs it there. */
const binOf = (checkout: string): string => {
  const manifest = JSON.parse(fs.readFileSync(path.join(checkout, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return path.resolve(checkout, manifest.bin['animal-store']!);
};

killLeftoverProcessesOnExit();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-compare-starts-'));
try {
  const file = path.join(folder, 'animals.json');
  const spacings: readonly string[] = ['server', 'compact', 'indented', 'sorted'] satisfies SeedSpacing[];
  if (!spacings.includes(args.spacing)) throw new Error(`--spacing must be one of ${spacings.join(', ')}, not ${args.spacing}.`);
  seedWriteCostFile(file, Number(args.animals), Number(args.keys), args.spacing as SeedSpacing);
  console.log(
    `${Number(args.animals).toLocaleString('en')} animals, ${Number(args.keys).toLocaleString('en')} keys, ${(fs.statSync(file).size / 1e6).toFixed(1)} MB, spaced as ${args.spacing}`,
  );
  console.log('| round | source | listening | serves | server CPU by then |');
  console.log('| ---: | --- | ---: | ---: | ---: |');
  for (let round = 1; round <= Number(args.rounds); round++) {
    for (const source of args.source) {
      const [name, checkout] = source.includes('=') ? (source.split('=') as [string, string]) : [source, source];
      const { listening, serves, cpu } = await startOnce(binOf(checkout), file);
      console.log(`| ${round} | ${name} | ${listening.toFixed(2)} s | ${serves.toFixed(2)} s | ${cpu.toFixed(2)} s |`);
    }
  }
} finally {
  fs.rmSync(folder, { recursive: true, force: true });
}
