/**
 * @module Reads V8 CPU profiles (`node --cpu-prof`) and prints, as shares of the busy
 * (not idle) time: who owns it (our code, @whatwg-node, other packages, Node, the engine),
 * the functions with the most self time, the packages or files that time falls in, and the
 * most total time: what to look at first when the bench misses a target.
 *
 *   npm run bench -- --only list20@medium --contenders ours --profile /tmp/prof
 *   npx tsx test/bench/topFunctions.ts /tmp/prof/*.cpuprofile [--top 30]
 */
import { readFile } from 'node:fs/promises';
import { relative } from 'node:path';
import { parseArgs } from 'node:util';
import { REPO_ROOT } from './servers.js';

/** The parts of a `.cpuprofile` this reader needs. */
interface CpuProfile {
  nodes: { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

/** Self time per function, per file and per owner, and total (inclusive) time per function, in milliseconds, summed over profiles. */
export interface SelfTimes {
  totalMs: number;
  /** Time the process was idle (waiting for I/O): left out of every share. */
  idleMs: number;
  functions: Map<string, number>;
  files: Map<string, number>;
  owners: Map<string, number>;
  /** Busy time with any of our functions on the stack: our code and everything it calls. */
  oursInclusiveMs: number;
  /** Time with the function anywhere on the stack (counted once per sample). */
  inclusive: Map<string, number>;
}

/** A short place for a script URL: a path in the repository, or `pkg:name` for a dependency. */
const placeOf = (url: string): string => {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  // The tsc build `--profile` runs from: name its files as in the repository.
  const built = /(?:animal-store-bench-[^/]+\/build|perf\/build-[^/]+)\/(.*)$/.exec(path);
  if (built) return built[1]!;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return `pkg:${dependency[1]}`;
  if (path.startsWith('node:')) return path;
  return path.startsWith('/') ? relative(REPO_ROOT, path) : path;
};

/** Who a sample's time belongs to: our code, the HTTP library, another package, Node, or the engine itself. */
const ownerOf = (place: string, functionName: string): string => {
  if (/^(core|storage|adapters)\//.test(place)) return `animal-store ${place.split('/')[0]}/`;
  if (place.startsWith('pkg:@whatwg-node/')) return '@whatwg-node (server, fetch, promise-helpers)';
  if (place.startsWith('pkg:')) return 'other packages';
  if (place.startsWith('node:')) return 'Node (node:http, streams, events …)';
  if (functionName === '(garbage collector)') return 'garbage collector';
  return 'engine and native code (V8 builtins, JSON, crypto, syscalls)';
};

/** Adds one profile's self times to `into`. */
export const addSelfTimes = (profile: CpuProfile, into: SelfTimes): void => {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  const nameOf = (id: number) => {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    return `${functionName || '(anonymous)'}  ${placeOf(url)}${url ? `:${lineNumber + 1}` : ''}`;
  };
  profile.samples.forEach((id, index) => {
    const node = byId.get(id);
    const ms = (profile.timeDeltas[index] ?? 0) / 1000;
    if (!node) return;
    const place = placeOf(node.callFrame.url);
    const name = nameOf(id);
    into.totalMs += ms;
    if (node.callFrame.functionName === '(idle)') {
      into.idleMs += ms;
      return;
    }
    const owner = ownerOf(place, node.callFrame.functionName);
    into.owners.set(owner, (into.owners.get(owner) ?? 0) + ms);
    into.functions.set(name, (into.functions.get(name) ?? 0) + ms);
    into.files.set(place, (into.files.get(place) ?? 0) + ms);
    const onStack = new Set<string>();
    let ours = false;
    for (let at: number | undefined = id, depth = 0; at !== undefined && depth < 500; at = parentOf.get(at), depth++) {
      onStack.add(nameOf(at));
      ours ||= ownerOf(placeOf(byId.get(at)!.callFrame.url), '').startsWith('animal-store');
    }
    if (ours) into.oursInclusiveMs += ms;
    for (const caller of onStack) into.inclusive.set(caller, (into.inclusive.get(caller) ?? 0) + ms);
  });
};

const table = (title: string, entries: Map<string, number>, totalMs: number, top: number) => {
  const rows = [...entries].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `${title}`,
    ...rows.map(([name, ms]) => `${((100 * ms) / totalMs).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(7)} ms  ${name}`),
  ].join('\n');
};

const main = async () => {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { top: { type: 'string', default: '25' } } });
  if (positionals.length === 0) {
    process.stderr.write('usage: topFunctions.ts PROFILE.cpuprofile… [--top N]\n');
    process.exit(2);
  }
  const times: SelfTimes = {
    totalMs: 0,
    idleMs: 0,
    functions: new Map(),
    files: new Map(),
    owners: new Map(),
    oursInclusiveMs: 0,
    inclusive: new Map(),
  };
  for (const file of positionals) addSelfTimes(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, times);
  const top = Number(values.top);
  const busyMs = times.totalMs - times.idleMs;
  process.stdout.write(
    `${positionals.length} profile(s), ${times.totalMs.toFixed(0)} ms sampled, ${busyMs.toFixed(0)} ms busy (shares below are of the busy time)\n\n` +
      `${table('self time by owner', times.owners, busyMs, top)}\n` +
      `${((100 * times.oursInclusiveMs) / busyMs).toFixed(1).padStart(5)}%  ${times.oursInclusiveMs.toFixed(0).padStart(7)} ms  ` +
      'with animal-store code on the stack (it and everything it calls)\n\n' +
      `${table('self time by function', times.functions, busyMs, top)}\n\n` +
      `${table('self time by file or package', times.files, busyMs, top)}\n\n` +
      `${table('total time by function (itself and what it calls)', times.inclusive, busyMs, top)}\n`,
  );
};

await main();
