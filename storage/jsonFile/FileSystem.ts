/** @module The few file functions the JSON-file storage uses, so tests can make them fail. */
import fs from 'node:fs/promises';

/**
 * The subset of `node:fs/promises` the storage needs. Pass your own to simulate a failing
 * disk (a full disk, an I/O error on fsync); the default is Node's, looked up at each call
 * so that a test preload patching `fs.promises` reaches it too.
 */
export type FileSystem = Pick<typeof fs, 'open' | 'rename' | 'unlink' | 'readFile' | 'readdir' | 'mkdir' | 'realpath' | 'stat'>;

/** Node's own file functions, read from `fs.promises` at every use rather than once. */
export const nodeFileSystem: FileSystem = {
  get open() {
    return fs.open;
  },
  get rename() {
    return fs.rename;
  },
  get unlink() {
    return fs.unlink;
  },
  get readFile() {
    return fs.readFile;
  },
  get readdir() {
    return fs.readdir;
  },
  get mkdir() {
    return fs.mkdir;
  },
  get realpath() {
    return fs.realpath;
  },
  get stat() {
    return fs.stat;
  },
};
