/** @module `animal-store init-worker DIR`: writes the test apps' service worker script into the folder a dev server serves. */
import { copyFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { findBrowserFiles } from './findBrowserFiles.js';
import { UsageError } from './UsageError.js';

/** The worker script's file name, as `startWorker()` looks for it by default. */
export const WORKER_FILE = 'animal-store-worker.js';

/** What `init-worker` is to do. */
export interface InitWorkerSettings {
  /** The folder to write the worker script into (a web root, such as `public/`). */
  folder: string;
}

/** Adds `init-worker` to the program. */
export const addInitWorkerCommand = (program: Command): Command =>
  program
    .command('init-worker')
    .description(
      `Write ${WORKER_FILE} (the catalogue as a service worker, for test apps) into DIR, the folder your dev server serves at /, ` +
        "such as public/. Then call startWorker() from 'animal-store/browser' in the page.",
    )
    .usage('DIR')
    .argument('[DIR]', 'the folder to write the worker script into')
    .helpOption('-h, --help', 'show this help');

/** Reads a parsed `init-worker` command; throws a UsageError when DIR is missing. */
export const readInitWorkerSettings = (folder: string | undefined, command: Command): InitWorkerSettings => {
  if (command.args.length > 1) throw new UsageError(`unexpected argument ${JSON.stringify(command.args[1]!.slice(0, 40))}`, 'init-worker');
  if (folder === undefined || folder === '')
    throw new UsageError('init-worker needs DIR: the folder your dev server serves, such as public/', 'init-worker');
  return { folder };
};

/** Copies the built worker script into the folder; resolves with the file written. Throws with a sentence when it cannot. */
export const initWorker = async ({ folder }: InitWorkerSettings): Promise<string> => {
  const found = await stat(folder).catch(() => undefined);
  if (found === undefined)
    throw new Error(`the folder ${folder} does not exist: create it (mkdir -p ${folder}) or give the folder your dev server serves`);
  if (!found.isDirectory()) throw new Error(`${folder} is not a folder: give the folder your dev server serves, such as public/`);
  const target = join(folder, WORKER_FILE);
  await copyFile(join(findBrowserFiles(), WORKER_FILE), target);
  return target;
};
