/** @module Writes the key made for a run beside the data file, for the operator's next command to read. */
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';
import path from 'node:path';

/** The file's name, beside the data file: `data/api-key` for the default `data/animals.json`. */
export const KEY_FILE_NAME = 'api-key';

/**
 * Writes `key` to `api-key` in the data file's folder, readable by its owner only, replacing
 * the one from the last run whatever its mode was: a new file is written (mode 0600 from its
 * creation, so no one can open it in between) and renamed over the old one. Resolves with
 * its absolute path.
 */
export const writeKeyFile = async (dataFile: string, key: string): Promise<string> => {
  const file = path.join(path.dirname(path.resolve(dataFile)), KEY_FILE_NAME);
  const temporary = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${key}\n`);
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new Error(`cannot write the generated API key to ${file}: ${(error as Error).message}`, { cause: error });
  }
  return file;
};
