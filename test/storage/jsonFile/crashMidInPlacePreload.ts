/**
 * @module Test-only preload for the real server (`node --import` it): while the file named by
 * ANIMAL_STORE_TEST_CRASH_MID_IN_PLACE exists, the process kills itself with SIGKILL the
 * moment a write in place has written its first range (in the data file's first line, which
 * holds the next id) and before its others: the data file is left half old, half new, as a
 * crash in the middle of that write leaves it.
 */
import fs from 'node:fs';
import type { FileHandle } from 'node:fs/promises';

const marker = process.env.ANIMAL_STORE_TEST_CRASH_MID_IN_PLACE;
if (marker) {
  const open = fs.promises.open;
  fs.promises.open = async function openAndCrashMidWrite(file, ...rest) {
    const handle = await open(file, ...rest);
    // Writes at an explicit offset are a write in place's (a whole-file write gives none); its undo record is left alone.
    if (!String(file).endsWith('.undo')) {
      const writev = handle.writev.bind(handle) as FileHandle['writev'];
      handle.writev = (async (buffers: NodeJS.ArrayBufferView[], position?: number) => {
        const written = await writev(buffers, position);
        if (typeof position === 'number' && fs.existsSync(marker)) process.kill(process.pid, 'SIGKILL');
        return written;
      }) as FileHandle['writev'];
    }
    return handle;
  } as typeof open;
}
