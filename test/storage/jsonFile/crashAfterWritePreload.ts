/**
 * @module Test-only preload for the real server (`node --import` it): while the file named by
 * ANIMAL_STORE_TEST_CRASH_AFTER_WRITE exists, the process kills itself with SIGKILL the moment
 * a durable write is complete (its journal line written, or a whole write's folder fsync
 * closed), so the write is on disk and its
 * answer is never sent: the crash between a write and its answer.
 */
import fs from 'node:fs';

const marker = process.env.ANIMAL_STORE_TEST_CRASH_AFTER_WRITE;
if (marker) {
  const open = fs.promises.open;
  fs.promises.open = async function openAndCrashAfterFolderSync(file, ...rest) {
    const handle = await open(file, ...rest);
    // A create's write is one line appended to the journal, durable when `write` returns (O_DSYNC).
    if (String(file).endsWith('.journal')) {
      const write = handle.write.bind(handle) as (...args: unknown[]) => Promise<unknown>;
      handle.write = (async (...args: unknown[]) => {
        const written = await write(...args);
        if (fs.existsSync(marker)) process.kill(process.pid, 'SIGKILL');
        return written;
      }) as typeof handle.write;
    }
    // A whole write ends by opening the data file's folder, fsyncing and closing it.
    if (fs.existsSync(marker) && fs.statSync(file).isDirectory()) {
      const close = handle.close.bind(handle);
      handle.close = async () => {
        await close();
        process.kill(process.pid, 'SIGKILL');
      };
    }
    return handle;
  } as typeof open;
}
