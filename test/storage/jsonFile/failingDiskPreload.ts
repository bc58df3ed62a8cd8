/**
 * @module Test-only preload for the real server (`node --import` it): while the file named by
 * ANIMAL_STORE_TEST_DISK_FULL_WHILE exists, opening a temp file and appending to the journal
 * fail as on a full disk, so
 * every durable write fails before it touches the data file. Tests run as root, where a
 * read-only folder would not stop a write; this is the disk failing instead.
 */
import fs from 'node:fs';

const marker = process.env.ANIMAL_STORE_TEST_DISK_FULL_WHILE;
if (marker) {
  const open = fs.promises.open;
  fs.promises.open = async function openUnlessDiskFull(file, ...rest) {
    if (String(file).endsWith('.tmp') && fs.existsSync(marker)) {
      throw Object.assign(new Error(`ENOSPC: no space left on device, open '${String(file)}'`), {
        code: 'ENOSPC',
        syscall: 'open',
      });
    }
    const handle = await open(file, ...rest);
    // A create's write appends a line to the journal: the disk refuses that too.
    if (String(file).endsWith('.journal')) {
      const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<unknown>;
      handle.write = (async (...args: unknown[]) => {
        if (fs.existsSync(marker)) {
          throw Object.assign(new Error(`ENOSPC: no space left on device, write`), { code: 'ENOSPC', syscall: 'write' });
        }
        return write(...args);
      }) as typeof handle.write;
    }
    return handle;
  } as typeof open;
}
