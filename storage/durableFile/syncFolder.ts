/** @module Makes a folder's entries durable: fsync the folder, and create missing folders durably. */
import path from 'node:path';
import type { FileSystem } from './FileSystem.js';

/** Opens a folder and fsyncs it, which makes a rename or a new entry in it durable. */
export const syncFolder = async (fs: FileSystem, folder: string): Promise<void> => {
  // Windows cannot open a folder for fsync, and its renames are durable on their own terms.
  if (process.platform === 'win32') return;
  const handle = await fs.open(folder, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
};

/**
 * Creates a file's folder and any missing parents, durably: each new folder's parent is
 * fsynced, or a power loss could forget the folder and the file in it.
 */
export const createFolderDurably = async (file: string, fs: FileSystem): Promise<void> => {
  const folder = path.dirname(file);
  const first = await fs.mkdir(folder, { recursive: true });
  if (first === undefined) return;
  for (let created = folder; ; created = path.dirname(created)) {
    await syncFolder(fs, path.dirname(created));
    if (created === first || path.dirname(created) === created) break;
  }
};
