import { describe, expect, it } from 'vitest';
import { crash, getJson, postPet, runServerToExit, startServer, tempDataFile } from '../../support/serverProcess.js';

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
});
