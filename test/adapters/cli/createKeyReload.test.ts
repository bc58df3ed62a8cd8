import { chmodSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createKeyReload } from '../../../adapters/cli/createKeyReload.js';
import { watchKeyFiles } from '../../../adapters/cli/watchKeyFiles.js';
import { nodeSha256 } from '../../../adapters/node/serve.js';
import { createKeyRing } from '../../../core/auth/createKeyRing.js';
import { tempFolder } from '../../support/tempFolder.js';

const OLD = 'old-key-in-the-file-01';
const NEW = 'new-key-in-the-file-01';
const GIVEN = 'given-on-the-command-01';

const setUp = () => {
  const file = path.join(tempFolder(), 'keys');
  writeFileSync(file, `${OLD} read name=old\n`, { mode: 0o600 });
  const ring = createKeyRing([{ key: GIVEN }, { key: OLD, scopes: ['read'], name: 'old' }], nodeSha256);
  const lines: string[] = [];
  const log = { info: (line: string) => lines.push(`info ${line}`), warn: (line: string) => lines.push(`warn ${line}`) };
  const reload = createKeyReload({ keys: [{ key: GIVEN, source: '--api-key #1' }], keyFiles: [file] }, ring, log);
  const names = async () => (await ring.callers()).map(({ name, keyFingerprint }) => (name === keyFingerprint ? 'unnamed' : name));
  return { file, reload, names, lines };
};

describe('reading the keys files again', () => {
  it('Should put a changed file’s keys in force beside the given ones, and say so without a key', async () => {
    const { file, reload, names, lines } = setUp();
    writeFileSync(file, `${NEW} sync name=kiosk-9\n`);
    await reload('SIGHUP');
    expect(await names()).toEqual(['unnamed', 'kiosk-9']);
    expect(lines).toEqual(['info SIGHUP: the API keys were read again; 2 in force']);
  });

  it.each([
    ['a key too short', (file: string) => writeFileSync(file, 'short\n'), /has 5 characters/],
    ['a bad line', (file: string) => writeFileSync(file, `${NEW} write\n`), /has "write", which is neither a scope/],
    ['a missing file', (file: string) => rmSync(file), /there is no such file/],
    ['a file others can read', (file: string) => chmodSync(file, 0o644), /can be read by other users/],
  ])('Should keep the keys in force when the file holds %s, and log why without a key', async (_case, spoil, reason) => {
    const { file, reload, names, lines } = setUp();
    spoil(file);
    await reload('a keys file changed');
    expect(await names()).toEqual(['unnamed', 'old']);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^warn a keys file changed: the API keys were not changed, the keys in force are kept: /);
    expect(lines[0]).toMatch(reason);
    for (const key of [OLD, NEW, GIVEN]) expect(lines[0]).not.toContain(key);
  });

  it('Should notice an edit of a watched file, also one saved by renaming a new file over it', async () => {
    const { file } = setUp();
    let changes = 0;
    const watch = watchKeyFiles([file], () => changes++);
    try {
      writeFileSync(file, `${NEW}\n`);
      for (const started = Date.now(); changes === 0 && Date.now() - started < 3_000; )
        await new Promise((resolve) => setTimeout(resolve, 20));
      expect(changes).toBeGreaterThan(0);
      // The once-a-second poll may report the same edit again: let it settle first.
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      const settled = changes;
      writeFileSync(`${file}.tmp`, `${OLD}\n`, { mode: 0o600 });
      renameSync(`${file}.tmp`, file);
      for (const started = Date.now(); changes === settled && Date.now() - started < 3_000; ) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(changes).toBeGreaterThan(settled);
    } finally {
      watch.close();
    }
  });
});
