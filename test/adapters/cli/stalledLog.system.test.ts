/** @module The real CLI with its stdout going to a pipe nobody reads: memory stays bounded, the gap is told. */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { waitForOutput } from '../../support/nodeProcess.js';
import { killLeftoverProcesses, startCli } from '../../support/startCli.js';

afterEach(killLeftoverProcesses);

const KEY = 'stalled-log-test-key-01';

/** The resident memory of a process, in bytes, as Linux counts it. */
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) * 1024;

/** Sends `count` requests, `parallel` at a time, each to its own long path: each leaves a long access line. */
const flood = async (url: string, count: number, parallel: number) => {
  const padding = 'p'.repeat(8000);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const response = await fetch(`${url}/${padding}${next++}`);
      await response.body?.cancel();
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
};

describe('animal-store with a stalled log reader', () => {
  it('keeps its memory bounded, drops what it cannot write, then says how much and counts it in the metrics', async () => {
    const cli = await startCli(['--memory', '--port', '0', '--api-key', KEY, '--metrics']);
    // Warm up with a reader, so that what is measured next is only what the log would hold.
    await flood(cli.url, 500, 8);
    const before = rssOf(cli.pid);

    cli.child.stdout!.pause();
    // About 100 MB of access lines, which a log without a bound would keep in memory.
    await flood(cli.url, 12_000, 8);
    const grown = rssOf(cli.pid) - before;
    // Generous: the default bound is 1 MiB; the rest is the heap's own breathing.
    expect(grown).toBeLessThan(40 * 1024 * 1024);

    cli.child.stdout!.resume();
    const [, dropped] = await waitForOutput(cli, /warning: dropped (\d+) log lines while stdout was blocked/);
    expect(Number(dropped)).toBeGreaterThan(10_000);
    expect(Number(dropped)).toBeLessThanOrEqual(12_000);

    const metrics = await (await fetch(new URL('/metrics', cli.url), { headers: { authorization: `Bearer ${KEY}` } })).text();
    expect(metrics).toContain(`animal_store_log_lines_dropped_total{stream="stdout"} ${dropped}`);
    expect(metrics).toContain('animal_store_log_lines_dropped_total{stream="stderr"} 0');

    cli.child.kill('SIGTERM');
    expect((await cli.exited).code).toBe(0);
  }, 120_000);
});
