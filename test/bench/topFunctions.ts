/**
 * @module Reads V8 CPU profiles (`node --cpu-prof`) and prints the functions with the most
 * self time, the packages or files that time falls in, and the most total time: what to look at first when the
 * bench misses a target.
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

/** Self time per function and per file, and total (inclusive) time per function, in milliseconds, summed over profiles. */
export interface SelfTimes {
  totalMs: number;
  functions: Map<string, number>;
  files: Map<string, number>;
  /** Time with the function anywhere on the stack (counted once per sample). */
  inclusive: Map<string, number>;
}

/** A short place for a script URL: a path in the repository, or `pkg:name` for a dependency. */
const placeOf = (url: string): string => {
  if (url === '') return '(native)';
  const path = url.replace(/^file:\/\//, '');
  // The tsc build `--profile` runs from: name its files as in the repository.
  const built = /animal-store-bench-[^/]+\/build\/(.*)$/.exec(path);
  if (built) return built[1]!;
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (dependency) return `pkg:${dependency[1]}`;
  if (path.startsWith('node:')) return path;
  return path.startsWith('/') ? relative(REPO_ROOT, path) : path;
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
    into.functions.set(name, (into.functions.get(name) ?? 0) + ms);
    into.files.set(place, (into.files.get(place) ?? 0) + ms);
    const onStack = new Set<string>();
    for (let at: number | undefined = id, depth = 0; at !== undefined && depth < 500; at = parentOf.get(at), depth++)
      onStack.add(nameOf(at));
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
  const times: SelfTimes = { totalMs: 0, functions: new Map(), files: new Map(), inclusive: new Map() };
  for (const file of positionals) addSelfTimes(JSON.parse(await readFile(file, 'utf8')) as CpuProfile, times);
  const top = Number(values.top);
  process.stdout.write(
    `${positionals.length} profile(s), ${times.totalMs.toFixed(0)} ms sampled\n\n` +
      `${table('self time by function', times.functions, times.totalMs, top)}\n\n` +
      `${table('self time by file or package', times.files, times.totalMs, top)}\n\n` +
      `${table('total time by function (itself and what it calls)', times.inclusive, times.totalMs, top)}\n`,
  );
};

await main();
