import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { crash, getJson, postPet, readDataFile, runServerToExit, startServer, tempDataFile } from '../../support/serverProcess.js';
import { tempFolder } from '../../support/tempFolder.js';
import { bindMount } from './mount.js';

describe('one real server per data file', () => {
  it('Should make a second server on the same file exit non-zero, naming the file and the owner', async () => {
    const file = tempDataFile();
    const owner = await startServer(file);
    const created = await postPet(owner.url, { name: 'Owned', categoryId: 1 });

    const second = await runServerToExit(file);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(file);
    expect(second.stderr).toContain(`process ${owner.pid}`);
    expect(second.stderr).not.toMatch(/at .*\.ts:\d+/); // a sentence, not a stack trace

    // The owner was not disturbed.
    expect((await getJson(owner.url, '/pets')).body).toEqual([created.body]);
  });

  it('Should let a server start at once on the file of an owner killed with SIGKILL', async () => {
    const file = tempDataFile();
    const owner = await startServer(file);
    const created = await postPet(owner.url, { name: 'Survivor', categoryId: 1 });
    await crash(owner);

    const restarted = await startServer(file);
    expect((await getJson(restarted.url, '/pets')).body).toEqual([created.body]);
  });

  /** Starts an owner on `file`, then a second server on `otherName` (the same file by another name), which must refuse. */
  const secondRefused = async (file: string, otherName: string) => {
    const owner = await startServer(file);
    const created = await postPet(owner.url, { name: 'Owned', categoryId: 1 });
    const second = await runServerToExit(otherName);
    expect(second.code).not.toBe(0);
    expect(second.stderr).toContain(otherName);
    expect(second.stderr).toContain(`process ${owner.pid}`);
    const after = await postPet(owner.url, { name: 'Still owned', categoryId: 1 });
    expect(readDataFile(file).pets).toEqual([created.body, after.body]);
  };

  it('Should refuse a second server that reaches the file through a bind mount', async () => {
    const folder = tempFolder();
    fs.mkdirSync(path.join(folder, 'data'));
    fs.mkdirSync(path.join(folder, 'mirror'));
    await bindMount(path.join(folder, 'data'), path.join(folder, 'mirror'));
    await secondRefused(path.join(folder, 'data', 'animals.json'), path.join(folder, 'mirror', 'animals.json'));
  });

  it('Should refuse a second server that reaches the file through a hard link', async () => {
    const folder = tempFolder();
    const file = path.join(folder, 'animals.json');
    fs.writeFileSync(file, '{"format":2,"nextId":1,"pets":[],"idempotencyKeys":[]}');
    const link = path.join(folder, 'linked.json');
    fs.linkSync(file, link);
    await secondRefused(file, link);
  });
});
