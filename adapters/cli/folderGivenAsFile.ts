/** @module The one line for a data file that is a folder: the system's EISDIR, said as advice. */
import { DataFileError } from '../../storage/durableFile/index.js';

/**
 * When `error` is a data file's failure because the path names a folder (EISDIR), the line
 * that says so and what to give instead; `undefined` for any other error.
 */
export const folderGivenAsFile = (error: unknown): string | undefined => {
  if (!(error instanceof DataFileError)) return undefined;
  let isFolder = false;
  for (let at: unknown = error, depth = 0; at instanceof Error && depth < 4 && !isFolder; at = at.cause, depth++) {
    isFolder = (at as NodeJS.ErrnoException).code === 'EISDIR' || /\(EISDIR\)|^EISDIR:/.test(at.message);
  }
  if (!isFolder) return undefined;
  const file = error.file.replace(/\/+$/, '');
  return `The data file ${file} is a folder, not a file: give the path of a file, such as ${file}/animals.json.`;
};
