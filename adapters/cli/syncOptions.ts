/** @module `serve`'s sync flags: `--sync-with URL --sync-key KEY [--sync-interval SECONDS]`, and the settings they make. */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { LIVE_PULL_WAIT_SECONDS } from '../sync/startReplicator.js';
import { UsageError } from './UsageError.js';

/** How a kiosk syncs with its hub, from the command line. */
export interface SyncSettings {
  /** The hub's base URL, such as `https://hub.example/v1`. */
  hub: string;
  /** A key the hub accepts (never printed). */
  key: string;
  /** Seconds between rounds of sync. */
  intervalSeconds: number;
  /** Seconds each live pull may wait at the hub; 0 for no live pulls. */
  waitSeconds: number;
}

/** The default of `--sync-interval`: a few seconds, so a create reaches the hub soon and an idle kiosk costs nothing. */
export const DEFAULT_SYNC_INTERVAL_SECONDS = 5;

/** `--sync-interval SECONDS`: a positive number of seconds, fractions allowed (0.2 for tests), at most a day. */
const parseInterval = (text: string): number => {
  const value = Number(text);
  if (!/^[0-9]{1,6}(\.[0-9]{1,3})?$/.test(text) || value < 0.05 || value > 86_400) {
    throw new InvalidArgumentError('It must be a number of seconds from 0.05 to 86400.');
  }
  return value;
};

/** `--sync-wait SECONDS`: a whole number from 0 to 60. */
const parseWait = (text: string): number => {
  if (!/^[0-9]{1,2}$/.test(text) || Number(text) > 60) throw new InvalidArgumentError('It must be a whole number of seconds from 0 to 60.');
  return Number(text);
};

/** Adds the sync flags to `serve`. */
export const addSyncOptions = (serve: Command): void => {
  serve.optionsGroup('Sync (a kiosk that works offline and syncs with a hub):');
  serve
    .addOption(
      new Option(
        '--sync-with <URL>',
        "sync with this hub, e.g. https://hub.example/v1: keep serving offline, send local creates up, bring the hub's down",
      ).env('ANIMAL_STORE_SYNC_WITH'),
    )
    .addOption(new Option('--sync-key <KEY>', 'an API key the hub accepts, for --sync-with').env('ANIMAL_STORE_SYNC_KEY'))
    .addOption(
      new Option('--sync-interval <SECONDS>', 'seconds between rounds of sync with the hub')
        .env('ANIMAL_STORE_SYNC_INTERVAL')
        .argParser(parseInterval)
        .default(DEFAULT_SYNC_INTERVAL_SECONDS),
    )
    .addOption(
      new Option(
        '--sync-wait <SECONDS>',
        "seconds a live pull waits at the hub for the next animal (0 to 60; 0: no live pulls, only rounds); below a proxy's idle timeout",
      )
        .env('ANIMAL_STORE_SYNC_WAIT')
        .argParser(parseWait)
        .default(LIVE_PULL_WAIT_SECONDS),
    );
};

/** The sync settings, or `undefined` without `--sync-with`; throws a UsageError for a half-given or malformed pair. */
export const readSyncSettings = (
  flags: { syncWith?: string; syncKey?: string; syncInterval: number; syncWait: number },
  command: Command,
  keyFormat: RegExp,
): SyncSettings | undefined => {
  const { syncWith, syncKey, syncInterval, syncWait } = flags;
  if (syncWith === undefined) {
    if (syncKey !== undefined && command.getOptionValueSource('syncKey') === 'cli')
      throw new UsageError('--sync-key needs --sync-with URL');
    if (command.getOptionValueSource('syncInterval') === 'cli') throw new UsageError('--sync-interval needs --sync-with URL');
    if (command.getOptionValueSource('syncWait') === 'cli') throw new UsageError('--sync-wait needs --sync-with URL');
    return undefined;
  }
  let url: URL | undefined;
  try {
    url = new URL(syncWith);
  } catch {}
  if (url === undefined || !/^https?:$/.test(url.protocol) || url.search !== '' || url.hash !== '') {
    throw new UsageError("--sync-with must be the hub's http:// or https:// base URL, such as https://hub.example/v1");
  }
  if (url.username !== '' || url.password !== '')
    throw new UsageError('--sync-with must not hold a user or password; give the key with --sync-key');
  if (syncKey === undefined) throw new UsageError('--sync-with needs --sync-key KEY (or ANIMAL_STORE_SYNC_KEY): a key the hub accepts');
  if (!keyFormat.test(syncKey)) throw new UsageError('--sync-key must be letters, digits and -._~+/ (it travels as a Bearer token)');
  return { hub: syncWith.replace(/\/+$/, ''), key: syncKey, intervalSeconds: syncInterval, waitSeconds: syncWait };
};
