/** @module The one line `animal-store serve` prints when it cannot start: the cause and the fix. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { folderGivenAsFile } from '../../../adapters/cli/folderGivenAsFile.js';
import { parseCommandLine } from '../../../adapters/cli/parseCommandLine.js';
import type { ServeSettings } from '../../../adapters/cli/serveCommand.js';
import { startFailure } from '../../../adapters/cli/startFailure.js';
import { copyPets } from '../../../storage/copyPets.js';
import { DataFileError } from '../../../storage/durableFile/index.js';
import { openJsonFileStorage } from '../../../storage/jsonFile/openJsonFileStorage.js';

const settingsOf = (argv: string[]): ServeSettings => {
  const request = parseCommandLine(argv, {});
  if (request.kind !== 'serve') throw new Error('expected serve');
  return request.settings;
};

/** A system error as Node makes it. */
const systemError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('why the server could not start', () => {
  it('says a data file that is a folder is one, and what to give instead, for serve and copy alike', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'animal-store-folder-'));
    try {
      const expected = `The data file ${folder} is a folder, not a file: give the path of a file, such as ${folder}/animals.json.`;
      const opening = await openJsonFileStorage({ file: folder }).then(
        () => expect.unreachable('a folder opened as a data file'),
        (error: unknown) => error,
      );
      expect(startFailure(opening, settingsOf(['--data', folder]))).toBe(expected);
      const copying = await copyPets({ from: folder, to: join(folder, 'copy.json') }).then(
        () => expect.unreachable('a folder copied as a data file'),
        (error: unknown) => error,
      );
      expect(folderGivenAsFile(copying)).toBe(expected);
      expect(folderGivenAsFile(new Error('EISDIR: illegal operation on a directory'))).toBeUndefined();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });

  it('says a privileged port needs root, and which ports do not', () => {
    const line = startFailure(systemError('EACCES', 'listen EACCES: permission denied 127.0.0.1:80'), settingsOf(['--port', '80']));
    expect(line).toBe(
      "port 80 needs privileges to listen on (ports below 1024 are root's); choose --port 8080 or another above 1023, or put a proxy in front",
    );
  });

  it('says an unknown host is no host name of this machine, and what to give instead', () => {
    const line = startFailure(systemError('ENOTFOUND', 'getaddrinfo ENOTFOUND nosuch.invalid'), settingsOf(['--host', 'nosuch.invalid']));
    expect(line).toBe(
      'cannot listen on nosuch.invalid: no such host name (ENOTFOUND); give an address of this machine with --host, such as 127.0.0.1 or 0.0.0.0',
    );
  });

  it('says a data file on a read-only file system is that, and how to serve anyway', () => {
    const error = new DataFileError(
      '/ro/data/animals.json',
      'The folder of the data file /ro/data/animals.json cannot be created: read-only file system (EROFS).',
    );
    expect(startFailure(error, settingsOf([]))).toBe(
      'The folder of the data file /ro/data/animals.json cannot be created: read-only file system (EROFS): choose a writable place with --data FILE (or run with --memory).',
    );
  });

  it('points a list of animals given as the data file to --seed and copy', () => {
    const error = new DataFileError('db.json', 'The data file db.json cannot be used: format is missing.', {
      problem: 'format is missing',
    });
    expect(startFailure(error, settingsOf(['db.json']))).toMatch(
      /format is missing\. If it is a list of animals .*json-server.*: animal-store --seed db\.json --data NEW\.json, or animal-store copy --from db\.json --to NEW\.json$/,
    );
  });

  it('says anything else as it is', () => {
    expect(startFailure(new Error('the API key file k is a folder, not a file'), settingsOf([]))).toBe(
      'the API key file k is a folder, not a file',
    );
  });
});
