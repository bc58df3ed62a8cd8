/**
 * @module Proves the write-cost bench runs end to end as `npm run bench -- --only write-cost
 * --quick`: it builds, starts the built bin, and prints its tables, with what each create
 * wrote within issue 30's 32 KiB (bytes, not timings, so CI machines do not move it). The
 * bench once read its own flags when imported, and so refused `run.ts`'s `--only`.
 */
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { measureWriteCost } from './measureWriteCost.js';
import { REPO_ROOT } from './servers.js';

const run = promisify(execFile);

/** The rows of the bytes table: animals, live keys, and what a plain and a keyed create wrote, in KiB. */
const bytesRows = (stdout: string) =>
  [...stdout.matchAll(/^\| ([\d,]+) \| ([\d,]+) \| [\d.]+ MB \| [\d.]+ s \| ([\d.]+) KiB \| ([\d.]+) KiB \|/gm)].map((row) => ({
    animals: row[1],
    keys: row[2],
    plain: Number(row[3]),
    keyed: Number(row[4]),
  }));

describe('npm run bench -- --only write-cost --quick', () => {
  it('Should print what each create wrote, within 32 KiB, and keyed against plain side by side and in turns', async () => {
    expect(spawnSync('wrk', ['-v']).error, 'wrk is missing: apt-get install wrk (npm test does)').toBeUndefined();
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'test/bench/run.ts', '--only', 'write-cost', '--quick'], {
      cwd: REPO_ROOT,
      timeout: 140_000,
      maxBuffer: 16 * 2 ** 20,
    });

    const rows = bytesRows(stdout);
    expect(rows.map(({ animals, keys }) => [animals, keys])).toEqual([
      ['1,000', '0'],
      ['1,000', '1,000'],
      ['1,000', '2,000'],
    ]);
    for (const { plain, keyed } of rows) {
      expect(plain).toBeLessThanOrEqual(32);
      expect(keyed).toBeLessThanOrEqual(32);
    }
    // The servers share the last core this process may use, where taskset can pin them (two or more).
    expect(stdout).toMatch(
      /^\| window \(2 s, side by side(, servers on CPU \d+)?, 50 connections each\) \| plain creates\/s \| keyed creates\/s \| keyed\/plain \| server's µs a create: plain \| keyed \| keyed server's RSS after \|$/m,
    );
    // µs a create come from /proc, which this Linux-only bench (it reads /proc/PID/io) always has.
    expect(stdout).toMatch(/^\| 1 \| [1-9]\d* \| [1-9]\d* \| \d\.\d\d \| [1-9]\d* \| [1-9]\d* \| \d+ MB \|$/m);
    // The same windows in turns, each server alone on the core while it is loaded.
    expect(stdout).toMatch(
      /^\| window \(1 turn of 2 s, in turns(, servers on CPU \d+)?, 50 connections\) \| plain creates\/s \| keyed creates\/s \| keyed\/plain \| second plain server\/plain \|$/m,
    );
    expect(stdout).toMatch(/^\| 1 \| [1-9]\d* \| [1-9]\d* \| \d\.\d\d \| \d\.\d\d \|$/m);
    // The keyed load stored a new key with each create (the bench throws when it did not).
    expect(stdout).toMatch(
      /^The keyed server's file holds [1-9][\d,]* keys more than it was seeded with, for about [1-9][\d,]* keyed creates answered\.$/m,
    );
  }, 150_000);

  it('Should refuse a window that is not a whole number of seconds, which wrk cannot run', async () => {
    await expect(measureWriteCost({ sizes: [1_000], liveKeys: 1, seconds: 2.5, windows: 1, creates: 1 }, () => {})).rejects.toThrow(
      'a window of 2.5 s is not a whole number of seconds',
    );
  });
});
