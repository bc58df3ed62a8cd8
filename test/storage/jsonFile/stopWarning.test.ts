/** @module What a stop that cannot write the data file whole tells, and to whom. */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { openJsonFileStorage, openJsonFileStorageOn } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { tempDataFile } from '../../support/tempFolder.js';
import { createControlledFileSystem } from './controlledFileSystem.js';

const rex = { name: 'Rex', categoryId: 3, status: 'available' } as const;

/** A logger whose `warn` needs its `this`, as pino's and winston's do. */
class LinesLog {
  readonly lines: string[] = [];
  warn(message: string): void {
    this.lines.push(message);
  }
}

/** Opens a storage whose next whole write (the stop's) fails as on a full disk, with one animal in its journal. */
const openWithFailingStop = async (log?: LinesLog) => {
  const file = tempDataFile();
  const { fs: controlled, control } = createControlledFileSystem(path.dirname(file));
  const storage = await openJsonFileStorageOn(log ? { file, log } : { file }, controlled);
  const { id } = await storage.create(rex);
  control.plans.set(control.writes + 1, { failOpen: true });
  return { file, storage, id };
};

const stopWarning = (file: string) =>
  `the data file ${file} was not written whole at the stop, so its journal ${file}.journal (0.0 MiB) stays beside it, every change kept, and the next start reads both: The data file ${file} cannot be written: no space left on device (ENOSPC)`;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('A stop that cannot write the data file whole', () => {
  it("Should tell the storage's log, calling its warn as a method, and keep every animal for the next start", async () => {
    const log = new LinesLog();
    const { file, storage, id } = await openWithFailingStop(log);
    await storage.close();
    expect(log.lines).toEqual([stopWarning(file)]);
    expect(JSON.parse(fs.readFileSync(file, 'utf8')).pets).toEqual([]);

    const again = await openJsonFileStorage({ file, log });
    expect(again.get(id)).toEqual({ id, ...rex });
    await again.close();
    expect(log.lines).toHaveLength(1);
  });

  it('Should tell console.warn when no log is given', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    const { file, storage } = await openWithFailingStop();
    await storage.close();
    expect(warn.mock.calls).toEqual([[stopWarning(file)]]);
  });
});
