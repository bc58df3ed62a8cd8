import fs from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { DurableTextFile, type FileSystem, nodeFileSystem } from '../../../storage/durableFile/index.js';
import { until } from '../../support/serverProcess.js';
import { tempDataFile } from '../../support/tempFolder.js';

/** A data file taken as a server takes it; with `lying`, its stats can be made to show a change that is not on disk. */
const take = async () => {
  const file = tempDataFile();
  let lying = false;
  const lyingFs: FileSystem = {
    ...nodeFileSystem,
    stat: (async (path: string, options?: { bigint?: boolean }) => {
      const stats = await nodeFileSystem.stat(path, options as { bigint: true });
      if (lying && path === file) stats.mtimeNs += 1n;
      return stats;
    }) as FileSystem['stat'],
  };
  const durable = await DurableTextFile.take(file, { name: file, fs: lyingFs, initial: () => [Buffer.from('{}\n')] });
  return { file, durable, lie: () => (lying = true) };
};

/** Freezes the clock `lookNeeded` reads; `advance` moves it on. */
const frozenClock = () => {
  let now = performance.now();
  vi.spyOn(performance, 'now').mockImplementation(() => now);
  return { advance: (milliseconds: number) => (now += milliseconds) };
};

/** A data file taken, its folder watched, and the clock frozen. */
const takeWatched = async () => {
  const taken = await take();
  const stop = taken.durable.watch(() => {});
  return { ...taken, stop, clock: frozenClock() };
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('Whether a write must look at its data file first', () => {
  it('Should look before every write while the folder is not watched', async () => {
    const { durable } = await take();
    frozenClock();
    expect([durable.lookNeeded(), durable.lookNeeded(), durable.lookNeeded()]).toEqual([true, true, true]);
    await durable.release();
  });

  it('Should spare writes the look for 20 ms after one while the watch reports nothing, then look again', async () => {
    const { durable, stop, clock } = await takeWatched();
    expect(durable.lookNeeded()).toBe(true);
    expect(durable.lookNeeded()).toBe(false);
    clock.advance(19);
    expect(durable.lookNeeded()).toBe(false);
    clock.advance(1);
    expect(durable.lookNeeded()).toBe(true);
    expect(durable.lookNeeded()).toBe(false);
    stop();
    // Once it stops watching, every write looks again.
    expect(durable.lookNeeded()).toBe(true);
    expect(durable.lookNeeded()).toBe(true);
    await durable.release();
  });

  it('Should look at once when the watch reports an edit of the file or its journal removed, with the clock standing still', async () => {
    const { file, durable, stop } = await takeWatched();
    expect(durable.lookNeeded()).toBe(true);
    expect(durable.lookNeeded()).toBe(false);
    fs.writeFileSync(file, '{"edited":true}\n');
    await until(() => durable.lookNeeded(), 'the watch reported the edit', 5_000);

    await durable.append('{"a":1}');
    fs.rmSync(`${file}.journal`);
    await until(() => durable.lookNeeded(), 'the watch reported the journal gone', 5_000);
    stop();
    await durable.release();
  });

  it('Should look at once after a look found a change the watch did not report', async () => {
    const { durable, lie, stop } = await takeWatched();
    expect(durable.lookNeeded()).toBe(true);
    expect(await durable.changed()).toBe(false);
    expect(durable.lookNeeded()).toBe(false);
    lie();
    expect(await durable.changed()).toBe(true);
    expect(durable.lookNeeded()).toBe(true);
    stop();
    await durable.release();
  });
});
