/** @module The few file functions the JSON-file storage uses. */
import fs from 'node:fs/promises';

/** The subset of `node:fs/promises` the storage needs; tests pass one that fails on demand. */
export type FileSystem = Pick<
  typeof fs,
  'open' | 'rename' | 'link' | 'unlink' | 'readFile' | 'readdir' | 'readlink' | 'mkdir' | 'realpath' | 'stat' | 'lstat' | 'statfs'
>;

/** Node's own file functions. */
export const nodeFileSystem: FileSystem = fs;
