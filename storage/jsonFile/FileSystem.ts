/** @module The few file functions the JSON-file storage uses. */
// A namespace import, not a default one: the declaration file keeps this line, and a CommonJS
// user's TypeScript without esModuleInterop refuses a default import of node:fs/promises (TS1192).
import * as fs from 'node:fs/promises';

/** The subset of `node:fs/promises` the storage needs; tests pass one that fails on demand. */
export type FileSystem = Pick<
  typeof fs,
  'open' | 'rename' | 'link' | 'unlink' | 'readFile' | 'readdir' | 'readlink' | 'mkdir' | 'realpath' | 'stat' | 'lstat' | 'statfs'
>;

/** Node's own file functions. */
export const nodeFileSystem: FileSystem = fs;
