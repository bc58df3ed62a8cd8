/** @module The few file functions the JSON-file storage uses. */
// Two imports of one module. The type comes from a namespace import, the only one declaration
// files keep: a CommonJS user's TypeScript without esModuleInterop refuses a default import
// there (TS1192). The value is the module's mutable default object, so a test preload can
// wrap its methods (a namespace's bindings would not follow).
import type * as fsPromises from 'node:fs/promises';
import fs from 'node:fs/promises';

/** The subset of `node:fs/promises` the storage needs; tests pass one that fails on demand. */
export type FileSystem = Pick<
  typeof fsPromises,
  'open' | 'rename' | 'link' | 'unlink' | 'readFile' | 'readdir' | 'readlink' | 'mkdir' | 'realpath' | 'stat' | 'lstat' | 'statfs'
>;

/** Node's own file functions. */
export const nodeFileSystem: FileSystem = fs;
