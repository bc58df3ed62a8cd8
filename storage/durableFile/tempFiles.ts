/** @module The temp files a data file is replaced through: a name of their own beside it, and sweeping those a crash left. */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { FileSystem } from './FileSystem.js';

/** A new data file, and each temp file, is readable and writable by its owner only: animals' names are no one else's business. */
export const NEW_FILE_MODE = 0o600;

/**
 * A temp file name of its own beside the file (`<name>.<pid>.<random>.tmp`): the same folder
 * so the rename is atomic, a name of its own so no two writers ever share one.
 */
export const tempPath = (file: string): string => `${file}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Removes temp files that a crashed writer left beside `file`, and answers their paths.
 * Only safe while this process owns the file, since another owner's temp file may be in the
 * middle of its write.
 */
export const removeStaleTempFiles = async (fs: FileSystem, file: string): Promise<string[]> => {
  const folder = path.dirname(file);
  const tempName = new RegExp(`^${escapeRegExp(path.basename(file))}\\.\\d+\\.[0-9a-f]+\\.tmp$`);
  const stale = (await fs.readdir(folder)).filter((name) => tempName.test(name)).map((name) => path.join(folder, name));
  for (const temp of stale) await fs.unlink(temp).catch(() => {});
  return stale;
};
