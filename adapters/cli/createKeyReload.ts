/** @module Reads the keys files again and puts their keys in force, or keeps the keys in force and says why. */
import type { KeyRing } from '../../core/auth/createKeyRing.js';
import { reasonOf } from '../../storage/reasonOf.js';
import { collectKeys, toApiKey } from './collectKeys.js';
import type { CliLog } from './createCliLog.js';
import type { ServeSettings } from './serveCommand.js';

/**
 * Makes the reload of a server's keys: `reload(why)` reads every `--api-key-file` again and,
 * with the keys given on the command line and in the environment, puts them in force. A
 * change that cannot be used (unreadable, a bad line, a short key, a file other users can
 * read) keeps the keys in force and logs why: never a key. Reloads run one at a time.
 */
export const createKeyReload = (settings: Pick<ServeSettings, 'keys' | 'keyFiles'>, ring: KeyRing, log: Pick<CliLog, 'info' | 'warn'>) => {
  let running: Promise<void> = Promise.resolve();
  const reloadNow = async (why: string) => {
    if (settings.keyFiles.length === 0) {
      log.info(`${why}: no --api-key-file to read again; the keys in force are kept`);
      return;
    }
    try {
      // A file others can read is not used on a reload: a start only warns of one, but a
      // running server must not take keys from a file loosened by mistake.
      const configured = await collectKeys(settings.keys, settings.keyFiles, (warning) => {
        throw new Error(warning);
      });
      await ring.replace(configured.map(toApiKey));
      const names = configured.map(({ name }) => name).filter((name) => name !== undefined);
      log.info(`${why}: the API keys were read again; ${configured.length} in force`, { keys: configured.length, names });
    } catch (error) {
      log.warn(`${why}: the API keys were not changed, the keys in force are kept: ${reasonOf(error)}`);
    }
  };
  return (why: string): Promise<void> => {
    running = running.then(() => reloadNow(why));
    return running;
  };
};
