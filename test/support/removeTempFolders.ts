/**
 * @module Setup for every test file (vitest's `setupFiles`): removes the temp folders each
 * test and each file made. Hooks registered where `tempFolder.ts` is imported would be
 * registered once per worker, in the first file that imports it: the unit tests run many
 * files in one process without importing modules again (`isolate: false`), and the folders
 * of every later file were left in the OS temp folder (about 18,000 a run).
 */
import { afterAll, afterEach } from 'vitest';
import { removeFileFolders, removeTestFolders } from './tempFolder.js';

afterEach(removeTestFolders);
afterAll(removeFileFolders);
