/** @module Fresh temp folders for tests, removed when the test (or the test file) that made them ends. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const madeForTest: string[] = [];
const madeForFile: string[] = [];
const remove = (folders: string[]) => {
  for (const folder of folders.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
};

/** Removes the folders made for the test that just ended (vitest's setup, removeTempFolders.ts, calls it after each test). */
export const removeTestFolders = (): void => remove(madeForTest);

/** Removes the folders made for the test file that just ended (called after each file). */
export const removeFileFolders = (): void => remove(madeForFile);

/**
 * A new, empty folder under the OS temp folder. It is removed when the current test ends,
 * or with `until: 'file'` (for a `beforeAll`) when every test of the file has run.
 */
export const tempFolder = ({ until = 'test' }: { until?: 'test' | 'file' } = {}): string => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-test-'));
  (until === 'file' ? madeForFile : madeForTest).push(folder);
  return folder;
};

/** A data file path in a fresh temp folder; the file itself does not exist yet. */
export const tempDataFile = (): string => path.join(tempFolder(), 'animals.json');
