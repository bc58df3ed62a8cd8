/** @module Fresh temp folders for storage tests, removed after each test. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';

const made: string[] = [];

afterEach(() => {
  for (const folder of made.splice(0)) fs.rmSync(folder, { recursive: true, force: true });
});

/** A new, empty folder under the OS temp folder, removed when the current test ends. */
export const tempFolder = (): string => {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'animal-store-storage-'));
  made.push(folder);
  return folder;
};

/** A data file path in a fresh temp folder; the file itself does not exist yet. */
export const tempDataFile = (): string => path.join(tempFolder(), 'animals.json');
