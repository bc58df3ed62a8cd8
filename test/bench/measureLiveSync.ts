/**
 * @module `npx tsx test/bench/measureLiveSync.ts`: what live sync costs and gives, on real
 * CLI processes over loopback (issue 31's targets):
 *
 * - 200 pulls waiting at a JSON-file hub (`wait=60`): the hub's CPU over 10 s beside the
 *   same 10 s with none waiting (baseline, same script), its resident memory per waiting
 *   pull, and how long one create takes to answer all 200 (target: 5 % of a core, 64 KiB
 *   each, 2 s);
 * - two kiosks with default settings: from a create's 201 at one kiosk to the animal being
 *   there at the other (polled every 5 ms), over 30 creates (target: p95 under 1 s).
 *
 * Set LIVE_SYNC_PULLS and LIVE_SYNC_CREATES to change the sizes.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { killLeftoverProcesses, startCli } from '../support/startCli.js';

const PULLS = Number(process.env.LIVE_SYNC_PULLS ?? 200);
const CREATES = Number(process.env.LIVE_SYNC_CREATES ?? 30);
const WINDOW_MILLISECONDS = 10_000;
const HUB_KEY = 'bench-live-sync-hub-key-01';
const LOCAL_KEY = 'bench-live-sync-local-key-1';
const TICKS_PER_SECOND = 100;

const sleep = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));
/** The process's CPU time so far, in seconds (user + system, from /proc). */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
};
/** The process's resident memory, in KiB (from /proc). */
const residentKiB = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]);
/** The share of one core the process used over the next window. */
const coreShare = async (pid: number) => {
  const before = cpuSeconds(pid);
  await sleep(WINDOW_MILLISECONDS);
  return (cpuSeconds(pid) - before) / (WINDOW_MILLISECONDS / 1000);
};
const call = (url: string, key: string, init: RequestInit = {}) =>
  fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } });
const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.ceil(share * values.length) - 1]!;

const folder = await mkdtemp(join(tmpdir(), 'live-sync-bench-'));
try {
  const hub = await startCli(['serve', join(folder, 'hub.json'), '--port', '0', '--api-key', HUB_KEY, '--quiet'], {
    preload: [new URL('./reportMemoryOnSignal.ts', import.meta.url).href],
    env: { NODE_OPTIONS: '--expose-gc' },
  });
  /** The hub's memory after a collection: live objects only. */
  const liveMemory = async () => {
    const seen = hub.stderr().length;
    hub.child.kill('SIGUSR2');
    for (;;) {
      const line = /memory (\{.*\})/.exec(hub.stderr().slice(seen));
      if (line) return JSON.parse(line[1]!) as NodeJS.MemoryUsage;
      await sleep(20);
    }
  };
  const used = (memory: NodeJS.MemoryUsage) => memory.heapUsed + memory.external;
  await sleep(2_000);
  const idle = await coreShare(hub.pid);
  const rssBefore = residentKiB(hub.pid);
  const before = await liveMemory();
  const waiting = Array.from({ length: PULLS }, () => call(`${hub.url}/sync/pull?wait=60`, HUB_KEY));
  await sleep(2_000);
  const rssWaiting = residentKiB(hub.pid);
  const during = await liveMemory();
  const withPulls = await coreShare(hub.pid);
  const created = performance.now();
  await call(`${hub.url}/pets`, HUB_KEY, { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 1 }) });
  const answers = await Promise.all(waiting.map(async (answer) => ((await (await answer).json()) as { pets: unknown[] }).pets.length));
  const answeredAll = performance.now() - created;
  if (answers.some((count) => count !== 1)) throw new Error('a waiting pull was not answered with the create');
  console.log(`${PULLS} waiting pulls at a JSON-file hub:`);
  console.log(
    `  hub CPU: ${(idle * 100).toFixed(2)} % of a core with none waiting, ${(withPulls * 100).toFixed(2)} % with ${PULLS} waiting`,
  );
  console.log(
    `  hub memory after a collection (heap used + external): ${((used(during) - used(before)) / PULLS / 1024).toFixed(1)} KiB per waiting pull; resident: ${rssBefore} KiB, then ${rssWaiting} KiB (garbage not yet collected included)`,
  );
  console.log(`  one create answered all ${PULLS} in ${answeredAll.toFixed(0)} ms`);

  // Two kiosks with default settings: only the hub and the key are given.
  const kiosk = (name: string) =>
    startCli(['serve', join(folder, name), '--port', '0', '--api-key', LOCAL_KEY, '--quiet', '--sync-with', hub.url], {
      env: { ANIMAL_STORE_SYNC_KEY: HUB_KEY },
    });
  const [one, two] = [await kiosk('one.json'), await kiosk('two.json')];
  for (const node of [one, two]) {
    while (((await (await call(`${node.url}/sync/status`, LOCAL_KEY)).json()) as { idsLeft: number }).idsLeft === 0) await sleep(50);
  }
  await sleep(1_000);
  const latencies: number[] = [];
  for (let index = 0; index < CREATES; index++) {
    const answer = await call(`${one.url}/pets`, LOCAL_KEY, {
      method: 'POST',
      body: JSON.stringify({ name: `Live ${index}`, categoryId: 1 }),
    });
    const acknowledged = performance.now();
    const { id } = (await answer.json()) as { id: number };
    while ((await call(`${two.url}/pets/${id}`, LOCAL_KEY)).status !== 200) await sleep(5);
    latencies.push(performance.now() - acknowledged);
    await sleep(200);
  }
  console.log(`a create at one kiosk, listed at the other (default settings, ${CREATES} creates):`);
  console.log(
    `  p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p95 ${percentile(latencies, 0.95).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms`,
  );
} finally {
  killLeftoverProcesses();
  await rm(folder, { recursive: true, force: true });
}
